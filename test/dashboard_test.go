package test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	dto "github.com/prometheus/client_model/go"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/gateway"
	"github.com/agentgate/agentgate/internal/natstest"
)

// The dashboard's end-to-end tests drive a real headless Chromium (Debian's
// chromium; .ci/run installs it) against a gateway on an embedded server.
// They skip when no browser is found. Screenshots of every page go to
// $AGENTGATE_SCREENSHOTS, or test/screenshots (not committed).

// chromiumPath finds a Chromium binary: $AGENTGATE_CHROMIUM, or chromium,
// chromium-browser, google-chrome on the PATH.
func chromiumPath() string {
	if p := os.Getenv("AGENTGATE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser starts a headless Chromium for the test, at 1280x900.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		// CI sets AGENTGATE_REQUIRE_BROWSER once it has a browser: there a
		// missing one is a failure, not a quiet skip.
		if os.Getenv("AGENTGATE_REQUIRE_BROWSER") != "" {
			t.Fatal("AGENTGATE_REQUIRE_BROWSER is set but no chromium binary was found (AGENTGATE_CHROMIUM names one)")
		}
		t.Skip("no chromium binary found (apt-get install -y chromium, or set AGENTGATE_CHROMIUM): skipping the dashboard's browser tests")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.Flag("headless", true), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WindowSize(1280, 900))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelCtx := chromedp.NewContext(actx)
	if err := chromedp.Do(bctx); err != nil {
		cancelCtx()
		cancelAlloc()
		t.Fatalf("starting %s: %v", path, err)
	}
	// Only a context that has run once may carry a timeout (chromedp.Run).
	ctx, cancelTimeout := context.WithTimeout(bctx, 3*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	return ctx
}

// screenshotDir is where the tests write screenshots.
func screenshotDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("AGENTGATE_SCREENSHOTS")
	if dir == "" {
		dir = "screenshots"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// shoot saves a full-page screenshot as NAME.png, and NAME-phone.png at a
// phone's width.
func shoot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := screenshotDir(t)
	for _, v := range []struct {
		suffix string
		w, h   int64
		mobile bool
	}{{"", 1280, 900, false}, {"-phone", 390, 844, true}} {
		emulate := chromedp.EmulateViewport(v.w, v.h)
		if v.mobile {
			emulate = chromedp.EmulateViewport(v.w, v.h, chromedp.EmulateScale(2), chromedp.EmulateMobile)
		}
		// Sleep: let the page lay itself out at the new width.
		if err := chromedp.Do(ctx, emulate, chromedp.Sleep(150*time.Millisecond)); err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+v.suffix+".png"), buf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
}

// run runs browser actions, failing the test with what was being done.
func run(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		body, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
		t.Fatalf("%s: %v\npage shows: %.1500s", what, err, body)
	}
}

// read runs one browser action that returns a value.
func read[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		body, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
		t.Fatalf("%s: %v\npage shows: %.1500s", what, err, body)
	}
	return v
}

// textOf is the text of the first element sel matches (textContent, which
// SVG text has too).
func textOf(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	return read(t, ctx, "reading "+sel, chromedp.TextContent(chromedp.CSS(sel)))
}

// until waits for a JavaScript expression to be true in the page.
func until(expr string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(30*time.Second), chromedp.WithPollingInterval(100*time.Millisecond))
}

// dashboardConfig is a configuration folder with the pr-reviewer example
// only.
func dashboardConfig(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"schemas/pr-review.schema.json", "agents/pr-reviewer.json"} {
		b, err := os.ReadFile(filepath.Join(examplesDir, f))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// counterBlueprint is the agent the test creates in the editor; minimum is
// the output schema's minimum of n, as JSON.
func counterBlueprint(minimum string) string {
	return `{
  "name": "counter",
  "description": "Counts things",
  "max_retries": 1,
  "extra_fields": "strip",
  "coerce": true,
  "system_prompt": "Count the things you are given.",
  "output_schema": {
    "type": "object",
    "required": ["n"],
    "additionalProperties": false,
    "properties": {
      "n": {"type": "integer", "minimum": ` + minimum + `, "x-aliases": ["count"]}
    }
  }
}`
}

func TestDashboard_endToEnd(t *testing.T) {
	ctx := browser(t)
	b := startBus(t)
	// The gateway samples the drift every 200 ms, for the chart over time.
	g := startGatewayDir(t, b, dashboardConfig(t), func(c *gateway.Config) { c.DriftInterval = 200 * time.Millisecond })
	base := "http://" + g.HTTPAddr()

	// Agents: the list, then a new agent with a lint error, fixed, saved.
	run(t, ctx, "opening the agents list", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`a[href="#/agents/pr-reviewer"]`)))
	shoot(t, ctx, "01-agents")
	run(t, ctx, "writing a new agent with a bad minimum",
		chromedp.Click(chromedp.CSS(`a[href="#/agents/new"]`)), chromedp.WaitVisible(chromedp.CSS(`#blueprint`)),
		chromedp.SetValue(chromedp.CSS(`#blueprint`), counterBlueprint(`"zero"`)),
		chromedp.Click(chromedp.CSS(`#validate-agent`)),
		until(`document.querySelector(".findings .f-error") !== null`))
	findings := textOf(t, ctx, `.findings`)
	errLine := read(t, ctx, "reading the marked line", chromedp.Evaluate[int](`(() => { const g = document.querySelector(".gutter .g.error"); return g ? Number(g.textContent) : 0 })()`))
	if !strings.Contains(findings, "minimum") {
		t.Errorf("lint report does not name minimum: %q", findings)
	}
	// "minimum" is line 13 of counterBlueprint.
	if errLine != 13 {
		t.Errorf("lint error marked at line %d, want 13 (the minimum); report: %q", errLine, findings)
	}
	shoot(t, ctx, "02-agent-lint-error")
	run(t, ctx, "fixing it and validating again",
		chromedp.SetValue(chromedp.CSS(`#blueprint`), counterBlueprint(`0`)),
		chromedp.Click(chromedp.CSS(`#validate-agent`)),
		until(`document.querySelector(".findings .panel.good") !== null`),
		chromedp.Click(chromedp.CSS(`#save-agent`)),
		until(`location.hash === "#/agents/counter"`),
		chromedp.WaitVisible(chromedp.CSS(`#tab-output`)))
	if st, _ := callRegistry(t, g, "GET", "/v1/agents/counter", ""); st != 200 {
		t.Fatalf("the saved agent: GET /v1/agents/counter = %d", st)
	}
	shoot(t, ctx, "03-agent-general")
	// The tabs follow the keyboard: arrow keys move between them.
	run(t, ctx, "moving to the next tab with the keyboard", chromedp.Focus(chromedp.CSS(`#tab-general`)), chromedp.KeyEvent(kb.ArrowRight),
		until(`location.hash === "#/agents/counter/input"`), chromedp.WaitVisible(chromedp.CSS(`#input-schema`)))
	run(t, ctx, "the prompt tab", chromedp.Click(chromedp.CSS(`#tab-prompt`)), until(`(document.querySelector("pre.prompt") || {}).textContent?.includes("Required Output Format")`))
	shoot(t, ctx, "04-agent-prompt")

	// An incompatible schema version shows the 409's breaking changes.
	run(t, ctx, "opening pr-reviewer's output schema", chromedp.Navigate(base+"/#/agents/pr-reviewer/output"), chromedp.WaitVisible(chromedp.CSS(`#output-schema`)))
	text := read(t, ctx, "reading the schema", chromedp.Value(chromedp.CSS(`#output-schema`)))
	var doc map[string]any
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatalf("the editor's schema is not JSON: %v", err)
	}
	doc["$id"] = "https://agentgate.dev/schemas/pr-review/1.1.0"
	doc["required"] = append(doc["required"].([]any), "metrics")
	changed, _ := json.MarshalIndent(doc, "", "  ")
	run(t, ctx, "saving an incompatible version", chromedp.SetValue(chromedp.CSS(`#output-schema`), string(changed)),
		chromedp.Click(chromedp.CSS(`#save-schema`)), until(`document.querySelector(".findings .panel.bad") !== null`))
	findings = textOf(t, ctx, `.findings`)
	if !strings.Contains(findings, "409") || !strings.Contains(findings, "metrics") {
		t.Errorf("incompatible save shows %q, want the 409 and the breaking change at metrics", findings)
	}
	shoot(t, ctx, "05-agent-incompatible")

	// Runs: a run goes retry -> valid while its page is open.
	b.publish(raw{agent: "counter", run: "run-1", attempt: 1, payload: `{"n": "many"}`})
	b.awaitState("run-1", contract.RunRetryRequested, 1)
	run(t, ctx, "the runs list", chromedp.Navigate(base+"/#/runs"), chromedp.WaitVisible(chromedp.CSS(`tr[data-run="run-1"]`)))
	shoot(t, ctx, "06-runs")
	run(t, ctx, "opening run-1", chromedp.Click(chromedp.CSS(`tr[data-run="run-1"] a`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-outcome="retry_requested"] .m-violation`)))
	marked := read(t, ctx, "reading the marked violation", chromedp.Evaluate[string](`document.querySelector(".m-violation[data-path]").dataset.path`))
	if marked != "$.n" {
		t.Errorf("violation highlighted at %q, want $.n", marked)
	}
	shoot(t, ctx, "07-run-retry")
	b.publish(raw{agent: "counter", run: "run-1", attempt: 2, payload: `{"count": "3", "extra": true}`})
	run(t, ctx, "watching run-1 become valid", chromedp.WaitVisible(chromedp.CSS(`[data-outcome="result"]`)))
	text = textOf(t, ctx, `#run-status`)
	if !strings.Contains(text, "completed") {
		t.Errorf("run status shows %q, want completed", text)
	}
	// Each normalization is marked where it happened.
	for sel, want := range map[string]string{
		`[data-outcome="result"] .m-rename .note`: `renamed from "count"`,
		`[data-outcome="result"] .m-coerce .note`: `coerced "\"3\"" → "3"`,
		`[data-outcome="result"] .m-strip .note`:  `strip: $.extra`,
	} {
		if note := textOf(t, ctx, sel); !strings.Contains(note, want) {
			t.Errorf("%s = %q, want %q", sel, note, want)
		}
	}
	shoot(t, ctx, "08-run-valid")

	// The runs list filtered by status: run-1 (completed) and not run-2.
	b.publish(raw{agent: "counter", run: "run-2", attempt: 1, payload: `{"n": "many"}`})
	b.awaitState("run-2", contract.RunRetryRequested, 1)
	run(t, ctx, "the runs list, filtered", chromedp.Navigate(base+"/#/runs"), chromedp.WaitVisible(chromedp.CSS(`tr[data-run="run-2"]`)),
		chromedp.SetValue(chromedp.CSS(`#f-status`), "completed"), chromedp.Click(chromedp.CSS(`form.filters button[type="submit"]`)),
		until(`location.hash.includes("status=completed") && document.querySelector('tr[data-run="run-1"]') !== null && document.querySelector('tr[data-run="run-2"]') === null`))

	// Dead letters: a run that stays invalid, its dead letter replayed.
	b.publish(raw{agent: "counter", run: "run-dl", attempt: 1, payload: `{"n": "x"}`})
	b.awaitState("run-dl", contract.RunRetryRequested, 1)
	b.publish(raw{agent: "counter", run: "run-dl", attempt: 2, payload: `{"n": "y"}`})
	b.awaitState("run-dl", contract.RunFailed, 2)
	// The design's session view: the retries spent, said in its words.
	run(t, ctx, "the failed run", chromedp.Navigate(base+"/#/runs/run-dl"), until(`(document.querySelector("#run-attempts") || {}).textContent?.includes("exhausted")`))
	if text := textOf(t, ctx, `#run-attempts`); !strings.Contains(text, "Retry attempts: 1/1 exhausted") {
		t.Errorf("the failed run's attempts read %q, want Retry attempts: 1/1 exhausted", text)
	}
	shoot(t, ctx, "08b-run-exhausted")
	run(t, ctx, "the dead letters", chromedp.Navigate(base+"/#/dlq"), chromedp.WaitVisible(chromedp.CSS(`tr[data-seq] a`)))
	shoot(t, ctx, "09-dlq")
	run(t, ctx, "a dead letter", chromedp.Click(chromedp.CSS(`tr[data-seq] a`)), chromedp.WaitVisible(chromedp.CSS(`#raw-output`)))
	text = textOf(t, ctx, `#raw-output`)
	if !strings.Contains(text, `"y"`) {
		t.Errorf("raw output shows %q, want attempt 2's", text)
	}
	shoot(t, ctx, "10-dlq-detail")
	run(t, ctx, "replaying it", chromedp.Click(chromedp.CSS(`#replay`)), chromedp.WaitVisible(chromedp.CSS(`#new-outcome`)))
	text = textOf(t, ctx, `#new-outcome`)
	if !strings.Contains(text, "failed") {
		t.Errorf("new outcome shows %q, want the replay's dead letter (failed)", text)
	}
	shoot(t, ctx, "11-dlq-replayed")

	// Drift: the figures on the chart are those of /metrics.
	run(t, ctx, "the drift page", chromedp.Navigate(base+"/#/drift/counter"), chromedp.WaitVisible(chromedp.CSS(`[data-metric="outcomes.valid"]`)))
	metrics := scrape(t, g)
	figures := map[string]string{}
	for _, sel := range []string{`[data-metric="outcomes.valid"]`, `[data-metric="outcomes.retry"]`, `[data-metric="outcomes.dlq"]`,
		`[data-metric="retries.valid"]`, `[data-metric="retries.total"]`, `[data-figure="renamed:$"]`, `[data-figure="stripped:$.*"]`, `[data-figure="violation:type $.n"]`} {
		figures[sel] = textOf(t, ctx, sel)
	}
	want := map[string]float64{
		`[data-metric="outcomes.valid"]`:     sumMetric(metrics, "agentgate_outcomes_total", "agent", "counter", "outcome", "valid"),
		`[data-metric="outcomes.retry"]`:     sumMetric(metrics, "agentgate_outcomes_total", "agent", "counter", "outcome", "retry"),
		`[data-metric="outcomes.dlq"]`:       sumMetric(metrics, "agentgate_outcomes_total", "agent", "counter", "outcome", "dlq"),
		`[data-metric="retries.valid"]`:      sumMetric(metrics, "agentgate_retry_results_total", "agent", "counter", "outcome", "valid"),
		`[data-metric="retries.total"]`:      sumMetric(metrics, "agentgate_retry_results_total", "agent", "counter"),
		`[data-figure="renamed:$"]`:          sumMetric(metrics, "agentgate_normalizations_total", "agent", "counter", "op", "rename", "path", "$"),
		`[data-figure="stripped:$.*"]`:       sumMetric(metrics, "agentgate_normalizations_total", "agent", "counter", "op", "strip", "path", "$.*"),
		`[data-figure="violation:type $.n"]`: sumMetric(metrics, "agentgate_violations_total", "agent", "counter", "keyword", "type", "path", "$.n"),
	}
	for sel, w := range want {
		if w == 0 {
			t.Errorf("/metrics has no %s: the test publishes nothing to count", sel)
		}
		if got, err := strconv.ParseFloat(figures[sel], 64); err != nil || got != w {
			t.Errorf("drift %s shows %q, /metrics says %v", sel, figures[sel], w)
		}
	}
	shoot(t, ctx, "12-drift")

	// Bulk replay by agent: the letter replayed above is refused (409), the
	// one its replay produced goes back into its run.
	run(t, ctx, "replaying every dead letter of counter", chromedp.Navigate(base+"/#/dlq?agent=counter"),
		chromedp.WaitEnabled(chromedp.CSS(`#replay-all`)), chromedp.Click(chromedp.CSS(`#replay-all`)),
		until(`(document.querySelector("caption") || {}).textContent?.startsWith("Replayed 1 of 2")`),
		until(`document.querySelector("[data-replayed] .badge") !== null`))
	if text = textOf(t, ctx, "main"); !strings.Contains(text, "409") {
		t.Errorf("bulk replay report does not show the refusal: %.600s", text)
	}
	shoot(t, ctx, "13-dlq-bulk-replay")

	// Back on the drift page, the gateway's samples draw the outcomes over
	// time, and a reload keeps them: they come from GET /v1/drift's
	// history, not from the page. Wait until the gateway's last sample
	// counts every outcome /metrics does.
	var final map[string]float64
	natstest.WaitFor(t, 20*time.Second, "a drift sample with every outcome of counter", func() bool {
		h := getDriftHistory(t, base, "counter").History
		if len(h) < 3 {
			return false
		}
		metrics := scrape(t, g)
		final = map[string]float64{}
		for _, o := range contract.Outcomes {
			final[string(o)] = sumMetric(metrics, "agentgate_outcomes_total", "agent", "counter", "outcome", string(o))
			if h[len(h)-1].Outcomes[string(o)] != final[string(o)] {
				return false
			}
		}
		return true
	})
	run(t, ctx, "the drift over time", chromedp.Navigate(base+"/#/drift/counter"), chromedp.WaitVisible(chromedp.CSS(`svg.lines polyline`)))
	run(t, ctx, "reloading the drift page", chromedp.Reload(),
		until(`document.querySelectorAll("svg.lines circle.dot.o-valid").length >= 4`))
	type overTime struct {
		Before int       `json:"before"` // points older than the page
		Valid  []float64 `json:"valid"`
		Label  string    `json:"label"`
	}
	chart := read(t, ctx, "reading the chart over time", chromedp.Evaluate[overTime](`(() => {
		const dots = [...document.querySelectorAll("svg.lines circle.dot.o-valid")];
		return { before: dots.filter(d => Number(d.dataset.t) < performance.timeOrigin).length,
			valid: dots.map(d => Number(d.dataset.value)),
			label: document.querySelector("svg.lines").getAttribute("aria-label") };
	})()`))
	if chart.Before < 3 {
		t.Errorf("after a reload the chart has %d points from before it, want the gateway's samples (3 or more)", chart.Before)
	}
	if n := len(chart.Valid); n == 0 || chart.Valid[n-1] != final["valid"] || chart.Valid[0] > chart.Valid[n-1] {
		t.Errorf("valid over time = %v, want cumulative counts ending at /metrics' %v", chart.Valid, final["valid"])
	}
	if want := fmt.Sprintf("Outcomes over time: valid %v, retry %v, refused %v, dead letter %v",
		final["valid"], final["retry"], final["refused"], final["dlq"]); chart.Label != want {
		t.Errorf("chart label %q, want %q", chart.Label, want)
	}
	shoot(t, ctx, "14-drift-over-time")
}

func TestDashboard_token(t *testing.T) {
	ctx := browser(t)
	b := startBus(t)
	g := startGatewayDir(t, b, dashboardConfig(t), withTokens(t))
	base := "http://" + g.HTTPAddr()
	var text string
	run(t, ctx, "opening the dashboard without a token", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`.state.error`)))
	text = textOf(t, ctx, `.state.error`)
	if !strings.Contains(text, "401") {
		t.Errorf("without a token the page shows %q, want the API's 401", text)
	}
	shoot(t, ctx, "00-token-missing")
	run(t, ctx, "entering the read token", chromedp.SetValue(chromedp.CSS(`#token`), readToken), chromedp.Click(chromedp.CSS(`#token-form button`)),
		chromedp.WaitVisible(chromedp.CSS(`a[href="#/agents/pr-reviewer"]`)))
	text = read(t, ctx, "reading the stored token", chromedp.Evaluate[string](`sessionStorage.getItem("agentgate.token")`))
	if text != readToken {
		t.Errorf("sessionStorage holds %q", text)
	}
	// A read token cannot change anything: the API's 403 is shown.
	run(t, ctx, "saving with a read token", chromedp.Navigate(base+"/#/agents/pr-reviewer"), chromedp.WaitVisible(chromedp.CSS(`#save-agent`)),
		chromedp.Click(chromedp.CSS(`#save-agent`)), chromedp.WaitVisible(chromedp.CSS(`.findings .state.error`)))
	text = textOf(t, ctx, `.findings`)
	if !strings.Contains(text, "403") {
		t.Errorf("saving with a read token shows %q, want 403", text)
	}
}

// sumMetric adds the counters of name whose labels include the pairs given.
func sumMetric(fams map[string]*dto.MetricFamily, name string, pairs ...string) float64 {
	var total float64
next:
	for _, m := range fams[name].GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		for i := 0; i+1 < len(pairs); i += 2 {
			if labels[pairs[i]] != pairs[i+1] {
				continue next
			}
		}
		total += m.GetCounter().GetValue()
	}
	return total
}
