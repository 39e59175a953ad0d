package gateway

import (
	"cmp"
	"net/http"
	"slices"

	dto "github.com/prometheus/client_model/go"

	"github.com/agentgate/agentgate/contract"
)

// maxDriftRows bounds each top list of GET /v1/drift.
const maxDriftRows = 10

// driftCount is one row of a drift list: a label set and its count.
type driftCount struct {
	Op      string  `json:"op,omitempty"`
	Keyword string  `json:"keyword,omitempty"`
	Path    string  `json:"path"`
	Count   float64 `json:"count"`
}

// drift is the answer of GET /v1/drift?agent=: the agent's drift telemetry
// as /metrics holds it now, summed over schemas.
type drift struct {
	Agent string `json:"agent"`
	// Outcomes counts agentgate_outcomes_total by outcome.
	Outcomes map[string]float64 `json:"outcomes"`
	// Renamed and Stripped are the top agentgate_normalizations_total
	// paths of op rename and strip; Normalizations counts every op.
	Renamed        []driftCount       `json:"renamed"`
	Stripped       []driftCount       `json:"stripped"`
	Normalizations map[string]float64 `json:"normalizations"`
	// Violations are the top agentgate_violations_total keyword and path
	// pairs; Keywords counts them by keyword.
	Violations []driftCount       `json:"violations"`
	Keywords   map[string]float64 `json:"keywords"`
	// Retries counts agentgate_retry_results_total by outcome: valid over
	// their sum is the retries' success rate.
	Retries map[string]float64 `json:"retries"`
	// History is the agent's totals sampled every Config.DriftInterval,
	// oldest first, at most Config.DriftPoints of them: cumulative counts
	// since the gateway started, as above.
	History []driftPoint `json:"history"`
}

// drift serves GET /v1/drift?agent=.
func (g *Gateway) drift(w http.ResponseWriter, r *http.Request) {
	agent := r.URL.Query().Get("agent")
	if !contract.ValidAgent(agent) {
		writeError(w, http.StatusBadRequest, codeBadRequest, "agent: want a name of [A-Za-z0-9_-]+")
		return
	}
	families, err := g.metrics.drift.Gather()
	if err != nil {
		writeError(w, http.StatusInternalServerError, codeInternal, "gathering metrics failed")
		return
	}
	d := drift{Agent: agent, Outcomes: map[string]float64{}, Normalizations: map[string]float64{},
		Keywords: map[string]float64{}, Retries: map[string]float64{}, Renamed: []driftCount{}, Stripped: []driftCount{}, Violations: []driftCount{}}
	renamed, stripped, violations := map[string]float64{}, map[string]float64{}, map[[2]string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			l := labels(m)
			if l["agent"] != agent || m.GetCounter() == nil {
				continue
			}
			v := m.GetCounter().GetValue()
			switch f.GetName() {
			case "agentgate_outcomes_total":
				d.Outcomes[l["outcome"]] += v
			case "agentgate_retry_results_total":
				d.Retries[l["outcome"]] += v
			case "agentgate_normalizations_total":
				d.Normalizations[l["op"]] += v
				switch l["op"] {
				case contract.OpRename:
					renamed[l["path"]] += v
				case contract.OpStrip:
					stripped[l["path"]] += v
				}
			case "agentgate_violations_total":
				d.Keywords[l["keyword"]] += v
				violations[[2]string{l["keyword"], l["path"]}] += v
			}
		}
	}
	for p, v := range renamed {
		d.Renamed = append(d.Renamed, driftCount{Op: "rename", Path: p, Count: v})
	}
	for p, v := range stripped {
		d.Stripped = append(d.Stripped, driftCount{Op: "strip", Path: p, Count: v})
	}
	for k, v := range violations {
		d.Violations = append(d.Violations, driftCount{Keyword: k[0], Path: k[1], Count: v})
	}
	d.Renamed, d.Stripped, d.Violations = top(d.Renamed), top(d.Stripped), top(d.Violations)
	d.History = g.driftHist.history(agent)
	writeJSON(w, http.StatusOK, d)
}

// top sorts rows by count, highest first, and keeps maxDriftRows.
func top(rows []driftCount) []driftCount {
	slices.SortFunc(rows, func(a, b driftCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Keyword, b.Keyword), cmp.Compare(a.Path, b.Path))
	})
	return rows[:min(len(rows), maxDriftRows)]
}

func labels(m *dto.Metric) map[string]string {
	out := make(map[string]string, len(m.GetLabel()))
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}
