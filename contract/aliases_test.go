package contract_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/agentgate/agentgate/contract"
)

func TestClaimAliases(t *testing.T) {
	tests := []struct {
		name     string
		lists    string // [[property, x-aliases value], ...]
		declared []string
		canonOf  map[string]string
		ignored  []string // "list/entry why claimant"
	}{
		{"none", `[]`, nil, nil, nil},
		{"in order", `[["a", ["x", "y"]], ["b", ["z"]]]`, []string{"a", "b"},
			map[string]string{"x": "a", "y": "a", "z": "b"}, nil},
		{"as listed, not sorted", `[["a", ["y", "x"]]]`, []string{"a"}, map[string]string{"x": "a", "y": "a"}, nil},
		{"not a list", `[["a", "x"]]`, []string{"a"}, nil, []string{"0/-1 1 "}},
		{"not a name", `[["a", [1, "x"]]]`, []string{"a"}, map[string]string{"x": "a"}, []string{"0/0 2 "}},
		{"own name", `[["a", ["a"]]]`, []string{"a"}, nil, []string{"0/0 3 "}},
		{"declared", `[["a", ["b"]]]`, []string{"a", "b"}, nil, []string{"0/0 4 "}},
		{"twice in a list", `[["a", ["x", "x"]]]`, []string{"a"}, map[string]string{"x": "a"}, []string{"0/1 5 "}},
		{"the same property again", `[["a", ["x"]], ["a", ["x", "y"]]]`, []string{"a"},
			map[string]string{"x": "a", "y": "a"}, []string{"1/0 6 "}},
		{"first claim wins", `[["a", ["x"]], ["b", ["x"]]]`, []string{"a", "b"},
			map[string]string{"x": "a"}, []string{"1/0 7 a"}},
		{"the empty name is a property", `[["", ["x"]], ["b", ["x"]]]`, []string{"", "b"},
			map[string]string{"x": ""}, []string{"1/0 7 "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var raw [][2]any
			if err := json.Unmarshal([]byte(tt.lists), &raw); err != nil {
				t.Fatal(err)
			}
			lists := make([]contract.AliasList, len(raw))
			for i, r := range raw {
				lists[i] = contract.AliasList{Property: r[0].(string), Value: r[1]}
			}
			var ignored []string
			canonOf, aliasesOf := contract.ClaimAliases(lists, func(name string) bool { return slices.Contains(tt.declared, name) },
				func(list, entry int, why contract.AliasProblem, claimant string) {
					ignored = append(ignored, fmt.Sprintf("%d/%d %d %s", list, entry, why, claimant))
				})
			if !maps.Equal(canonOf, tt.canonOf) {
				t.Errorf("canonOf = %v, want %v", canonOf, tt.canonOf)
			}
			if !reflect.DeepEqual(ignored, tt.ignored) {
				t.Errorf("ignored = %q, want %q", ignored, tt.ignored)
			}
			// aliasesOf is canonOf inverted, in claim order: the order of
			// the entries that count, list by list.
			want := map[string][]string{}
			for _, l := range lists {
				entries, _ := l.Value.([]any)
				for _, e := range entries {
					if a, ok := e.(string); ok && canonOf[a] == l.Property && !slices.Contains(want[l.Property], a) {
						want[l.Property] = append(want[l.Property], a)
					}
				}
			}
			if len(canonOf) == 0 {
				want = nil
			}
			if !reflect.DeepEqual(aliasesOf, want) {
				t.Errorf("aliasesOf = %v, want %v", aliasesOf, want)
			}
			// Without a listener, the same claims.
			if again, _ := contract.ClaimAliases(lists, func(name string) bool { return slices.Contains(tt.declared, name) }, nil); !maps.Equal(again, canonOf) {
				t.Errorf("without a listener: %v", again)
			}
		})
	}
}
