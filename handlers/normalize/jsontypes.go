package normalize

// jsonTypes is a set of JSON Schema type names, one bit each, so that the
// type keywords met on every value of an output cost no allocation.
type jsonTypes uint8

const (
	typeNull jsonTypes = 1 << iota
	typeBoolean
	typeString
	typeNumber
	typeInteger
	typeArray
	typeObject
)

// typeNamed is the bit of a type name; 0 for a name JSON Schema does not
// define, which then allows nothing.
func typeNamed(name string) jsonTypes {
	switch name {
	case "null":
		return typeNull
	case "boolean":
		return typeBoolean
	case "string":
		return typeString
	case "number":
		return typeNumber
	case "integer":
		return typeInteger
	case "array":
		return typeArray
	case "object":
		return typeObject
	}
	return 0
}

// has reports whether t holds u.
func (t jsonTypes) has(u jsonTypes) bool { return t&u != 0 }

// typeKeyword reads the value of a type keyword: a name or a list of
// names. t holds every name it has; clean is false when it is neither a
// name nor a list, or a list holds a non-string.
func typeKeyword(raw any) (t jsonTypes, clean bool) {
	switch v := raw.(type) {
	case string:
		return typeNamed(v), true
	case []any:
		clean = true
		for _, e := range v {
			name, isName := e.(string)
			if !isName {
				clean = false
				continue
			}
			t |= typeNamed(name)
		}
		return t, clean
	}
	return 0, false
}
