package provider

import "github.com/agentgate/agentgate/contract"

// Name is a provider whose strict mode a schema can be exported to.
type Name string

// The providers.
const (
	OpenAI    Name = "openai"
	Anthropic Name = "anthropic"
)

// Names lists the providers, for flags and messages.
var Names = []Name{OpenAI, Anthropic}

// profile is what one provider's strict mode accepts (see the package
// doc comment for the pages it comes from).
type profile struct {
	// allRequired: every property must be required; an optional one is
	// exported as a union with null.
	allRequired bool
	// rootObject: the root must be a plain object (not anyOf).
	rootObject bool
	// recursion: $ref may reach itself.
	recursion bool
	// numeric: minimum, maximum, exclusive*, multipleOf are enforced.
	numeric bool
	// maxItems: maxItems is enforced; minItems up to minItemsMax.
	maxItems    bool
	minItemsMax int // -1: any
	// scalarEnums: enum and const values must be scalars.
	scalarEnums bool
	// simplePatterns: pattern may not use backreferences, lookaround or
	// word boundaries.
	simplePatterns bool
	formats        map[string]bool
	// Limits; 0 for none known. maxNameChars bounds the characters of all
	// property names, definition names, enum and const values; an enum of
	// more than largeEnum values may total at most largeEnumChars
	// characters; maxOptional bounds the optional properties and maxUnions
	// the schemas with anyOf or a list of types.
	maxProperties, maxDepth, maxEnumValues  int
	maxNameChars, largeEnum, largeEnumChars int
	maxOptional, maxUnions                  int
}

var profiles = map[Name]profile{
	OpenAI: {
		allRequired: true, rootObject: true, recursion: true, numeric: true,
		maxItems: true, minItemsMax: -1,
		formats: set("date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"),
		// 5,000 properties, 10 levels of nesting, 1,000 enum values in
		// all, 120,000 characters of names and enum values, 15,000
		// characters for an enum of over 250 values (see the package doc
		// comment for where these were read).
		maxProperties: 5000, maxDepth: 10, maxEnumValues: 1000,
		maxNameChars: 120000, largeEnum: 250, largeEnumChars: 15000,
	},
	Anthropic: {
		minItemsMax: 1, scalarEnums: true, simplePatterns: true,
		formats: set("date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"),
		// At most 24 optional parameters and 16 parameters using anyOf
		// or type arrays across a request's strict schemas.
		maxOptional: 24, maxUnions: 16,
	},
}

// quiet are keywords dropped without a finding: annotations and
// structure that the export rebuilds, and agentgate's own x-aliases (the
// normalizer's business, not the provider's).
var quiet = set("$id", "$schema", "$defs", "definitions", "$anchor", "$dynamicAnchor", "$comment",
	"default", "examples", "deprecated", "readOnly", "writeOnly", contract.AliasesKeyword)

func set(items ...string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, s := range items {
		m[s] = true
	}
	return m
}
