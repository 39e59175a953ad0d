package normalize

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// maxFractionText bounds the fractions fractionNumber evaluates.
const maxFractionText = 64

// fractionNumber returns the JSON number text of a fraction "a/b" (a and b
// unsigned decimals, a optionally negative, b not zero), as repair keeps
// {"ratio": 1/3} ("1/3"): the integer when it is one, else the float64
// nearest to it in its shortest form. It is false for anything else.
func fractionNumber(t string) (string, bool) {
	num, den, ok := strings.Cut(t, "/")
	if !ok || len(t) > maxFractionText || !decimalText(strings.TrimPrefix(num, "-")) || !decimalText(den) {
		return "", false
	}
	a, okA := new(big.Rat).SetString(num)
	b, okB := new(big.Rat).SetString(den)
	if !okA || !okB || b.Sign() == 0 {
		return "", false
	}
	q := new(big.Rat).Quo(a, b)
	if q.IsInt() {
		return q.Num().String(), true
	}
	f, _ := q.Float64()
	if math.IsInf(f, 0) || f == 0 {
		return "", false
	}
	return strconv.FormatFloat(f, 'g', -1, 64), true
}

// decimalText reports whether s is digits with at most one inner point.
func decimalText(s string) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' {
		return false
	}
	point := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '.' && !point:
			point = true
		case c < '0' || c > '9':
			return false
		}
	}
	return true
}
