package contract

// AliasesKeyword is the schema annotation that lists other names of a
// property (section 5): the normalizer renames a member found under one of
// them, and the schema linter refuses lists it could not apply.
const AliasesKeyword = "x-aliases"

// AliasList is the x-aliases of one property schema, as written.
type AliasList struct {
	// Property is the name of the property the list belongs to.
	Property string
	// Value is the keyword's value: an array of names when well formed.
	Value any
}

// AliasProblem is why ClaimAliases passes over an x-aliases entry.
type AliasProblem int

const (
	// AliasNotAList: the keyword's value is not an array.
	AliasNotAList AliasProblem = iota + 1
	// AliasNotAName: the entry is not a string.
	AliasNotAName
	// AliasOwnName: the entry is its property's own name.
	AliasOwnName
	// AliasDeclared: the entry is a property declared at the same place.
	AliasDeclared
	// AliasRepeated: the list holds the entry twice.
	AliasRepeated
	// AliasRestated: another list of the same property (the property
	// declared again in an allOf branch) holds the entry too: harmless.
	AliasRestated
	// AliasClaimed: a property before it claims the entry.
	AliasClaimed
)

// ClaimAliases is section 5's reading of the x-aliases that apply at one
// object location, in the order given: an entry names its property when it
// is a string, is not a name declared at the location (declared reports
// those, the property's own included), and no entry before it claimed it:
// the first claim wins. It returns each alias's property and each
// property's aliases in order. ignored, when not nil, is told of every
// entry passed over: the list (its index in lists), the entry's index (-1
// for a value that is not an array), why, and for AliasClaimed the
// property that claimed it first.
func ClaimAliases(lists []AliasList, declared func(name string) bool,
	ignored func(list, entry int, why AliasProblem, claimant string)) (canonOf map[string]string, aliasesOf map[string][]string) {
	skip := func(list, entry int, why AliasProblem, claimant string) {
		if ignored != nil {
			ignored(list, entry, why, claimant)
		}
	}
	var claimedIn map[string]int // alias to the list that claimed it
	for li, l := range lists {
		entries, ok := l.Value.([]any)
		if !ok {
			skip(li, -1, AliasNotAList, "")
			continue
		}
		for i, e := range entries {
			alias, ok := e.(string)
			claimant, taken := canonOf[alias]
			switch {
			case !ok:
				skip(li, i, AliasNotAName, "")
			case alias == l.Property:
				skip(li, i, AliasOwnName, "")
			case declared(alias):
				skip(li, i, AliasDeclared, "")
			case taken && claimedIn[alias] == li:
				skip(li, i, AliasRepeated, "")
			case taken && claimant == l.Property:
				skip(li, i, AliasRestated, "")
			case taken:
				skip(li, i, AliasClaimed, claimant)
			default:
				if canonOf == nil {
					canonOf, aliasesOf, claimedIn = make(map[string]string), make(map[string][]string), make(map[string]int)
				}
				canonOf[alias], claimedIn[alias] = l.Property, li
				aliasesOf[l.Property] = append(aliasesOf[l.Property], alias)
			}
		}
	}
	return canonOf, aliasesOf
}
