package jsonx

// Equal reports whether two decoded JSON values are equal: null, booleans
// and strings as themselves, arrays item by item, objects member by member
// whatever their order, and numbers by exact value whatever their spelling
// or Go type (json.Number "1", "1.0" and "1e0" and float64 1 are equal;
// integers past 2^53 are compared digit by digit, not as doubles). A number
// whose exponent is beyond ±MaxExponent equals only the same text. A
// json.Number that is not a number, a float that is not finite, and a Go
// value JSON does not decode to equal nothing.
func Equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !Equal(xv, yv) {
				return false
			}
		}
		return true
	}
	ta, okA := numberText(a)
	tb, okB := numberText(b)
	if !okA || !okB || !isNumberText(ta) || !isNumberText(tb) {
		return false
	}
	ca, okA := canonNumber(ta)
	cb, okB := canonNumber(tb)
	if !okA || !okB {
		return ta == tb // an exponent too large to take apart
	}
	return ca == cb
}
