package schemas_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentgate/agentgate/schemas"
)

// lossy_repair: "retry" by default, "accept" when asked, anything else a
// start-up error naming the value; MarshalJSON writes it only when not the
// default, and loading what it writes gives the same blueprint back.
func TestBlueprint_lossyRepair(t *testing.T) {
	t.Parallel()
	reg, err := schemas.LoadFS(fstest.MapFS{
		"agents/strict.json":  {Data: []byte(`{"name": "strict", "system_prompt": ""}`)},
		"agents/lenient.json": {Data: []byte(`{"name": "lenient", "system_prompt": "", "lossy_repair": "accept"}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"strict": schemas.LossyRepairRetry, "lenient": schemas.LossyRepairAccept} {
		bp, _ := reg.Blueprint(name)
		if bp.LossyRepair != want {
			t.Errorf("%s: LossyRepair = %q, want %q", name, bp.LossyRepair, want)
		}
		out, err := json.Marshal(bp)
		if err != nil {
			t.Fatal(err)
		}
		if has := strings.Contains(string(out), `"lossy_repair":"accept"`); has != (want == schemas.LossyRepairAccept) {
			t.Errorf("%s: MarshalJSON = %s", name, out)
		}
		again, err := schemas.LoadFS(fstest.MapFS{"agents/x.json": {Data: out}})
		if err != nil {
			t.Fatalf("%s: loading %s: %v", name, out, err)
		}
		if bp2, _ := again.Blueprint(name); bp2.LossyRepair != want {
			t.Errorf("%s: round trip LossyRepair = %q", name, bp2.LossyRepair)
		}
	}

	_, err = schemas.LoadFS(fstest.MapFS{"agents/x.json": {Data: []byte(`{"name": "x", "system_prompt": "", "lossy_repair": "yes"}`)}})
	if !errors.Is(err, schemas.ErrBadBlueprint) || !strings.Contains(err.Error(), `lossy_repair is "yes", want "retry" or "accept"`) {
		t.Errorf("bad value: %v", err)
	}
}
