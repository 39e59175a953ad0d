package schemas_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentgate/agentgate/schemas"
)

// TestBlueprint_upstream loads the upstream member of contract section 10:
// an identity or an instance id, checked as subject tokens, and written
// back by MarshalJSON.
func TestBlueprint_upstream(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		upstream string
		want     schemas.Upstream
		wantErr  string
	}{
		{"identity", `{"agent": "claude-code", "owner": "aconnolly", "name": "synadia-com-2"}`,
			schemas.Upstream{Agent: "claude-code", Owner: "aconnolly", Name: "synadia-com-2"}, ""},
		{"instance id", `{"instance_id": "VMKS6MHK71PCPWGY38A7N5"}`, schemas.Upstream{InstanceID: "VMKS6MHK71PCPWGY38A7N5"}, ""},
		{"empty", `{}`, schemas.Upstream{}, `needs "agent", "owner" and "name", or "instance_id"`},
		{"partial identity", `{"agent": "pi", "owner": "mario"}`, schemas.Upstream{}, `needs all of "agent", "owner" and "name"`},
		{"wildcard token", `{"agent": "pi", "owner": "*", "name": "w"}`, schemas.Upstream{}, `owner "*" is not a subject token`},
		{"dotted token", `{"agent": "pi", "owner": "a.b", "name": "w"}`, schemas.Upstream{}, `owner "a.b" is not a subject token`},
		{"a twin", `{"agent": "gate", "owner": "o", "name": "n"}`, schemas.Upstream{}, `a twin cannot gate a twin`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fsys := fstest.MapFS{"agents/gated.json": {Data: []byte(`{"name": "gated", "description": "d", "system_prompt": "", "upstream": ` + tt.upstream + `}`)}}
			reg, err := schemas.LoadFS(fsys)
			if tt.wantErr != "" {
				if !errors.Is(err, schemas.ErrBadBlueprint) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want ErrBadBlueprint with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			bp, _ := reg.Blueprint("gated")
			if bp.Upstream == nil || *bp.Upstream != tt.want {
				t.Fatalf("upstream = %+v, want %+v", bp.Upstream, tt.want)
			}
			b, _ := json.Marshal(bp)
			var back struct {
				Upstream schemas.Upstream `json:"upstream"`
			}
			if err := json.Unmarshal(b, &back); err != nil || back.Upstream != tt.want {
				t.Errorf("MarshalJSON wrote upstream %+v (%s)", back.Upstream, b)
			}
		})
	}
}
