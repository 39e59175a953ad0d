package handlers_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agentgate/agentgate/handlers"
)

// TestMergePatch runs the examples of RFC 7386, appendix A.
func TestMergePatch(t *testing.T) {
	t.Parallel()
	tests := []struct{ target, patch, want string }{
		{`{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
		{`{"a":"b"}`, `{"a":null}`, `{}`},
		{`{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
		{`{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
		{`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
		{`{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
		{`["a","b"]`, `["c","d"]`, `["c","d"]`},
		{`{"a":"b"}`, `["c"]`, `["c"]`},
		{`{"a":"foo"}`, `null`, `null`},
		{`{"a":"foo"}`, `"bar"`, `"bar"`},
		{`{"e":null}`, `{"a":1}`, `{"e":null,"a":1}`},
		{`[1,2]`, `{"a":"b","c":null}`, `{"a":"b"}`},
		{`{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
	}
	for _, tt := range tests {
		var target, patch, want any
		for _, p := range []struct {
			s string
			v *any
		}{{tt.target, &target}, {tt.patch, &patch}, {tt.want, &want}} {
			if err := json.Unmarshal([]byte(p.s), p.v); err != nil {
				t.Fatal(err)
			}
		}
		before, _ := json.Marshal(target)
		got := handlers.MergePatch(target, patch)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("MergePatch(%s, %s) = %v, want %s", tt.target, tt.patch, got, tt.want)
		}
		if after, _ := json.Marshal(target); string(after) != string(before) {
			t.Errorf("MergePatch modified its target: %s became %s", before, after)
		}
	}
}
