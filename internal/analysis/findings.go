package analysis

import (
	"cmp"
	"slices"

	"github.com/objbench/objbench/internal/document"
)

// Severities, most severe first.
const (
	High = "high"
	Warn = "warn"
	Info = "info"
)

// Facts are what the rules read: a document (a run's or probe's
// *document.Document, or a *document.StrategiesDocument) or a comparison,
// and the cost when priced. Each rule takes the document it reads by type.
type Facts struct {
	Doc        document.Doc
	Comparison *Comparison
	Cost       *document.Cost
	// Table is the price table Cost was made with (nil: unpriced).
	Table *PriceTable
}

// Rule turns facts into findings; it returns none when its facts are absent
// or do not hold. A new rule is one function and one line in rules.
type Rule func(*Facts) []document.Finding

// rules run in this order; findings are then ranked by severity, stably.
var rules = []Rule{
	rateRule,
	wireRule,
	kneeRule,
	coldWarmRule,
	reuseRule,
	requestsPerObjectRule,
	tailRule,
	sizeFitRule,
	concurrencyRule,
	rangeSweepRule,
	errorsRule,
	emptyStepsRule,
	expectRule,
	clientCPURule,
	strategiesRule,
	compareRule,
}

// Findings runs every rule on f and ranks what they find: high first,
// then warn, then info, each in rule order.
func Findings(f *Facts) []document.Finding {
	var out []document.Finding
	for _, r := range rules {
		out = append(out, r(f)...)
	}
	rank := map[string]int{High: 0, Warn: 1, Info: 2}
	slices.SortStableFunc(out, func(a, b document.Finding) int { return cmp.Compare(rank[a.Severity], rank[b.Severity]) })
	return out
}

// Annotate prices d and sets its findings, after finding the knee of
// each result with rate steps and none yet (a merged run's summed rows).
func Annotate(d *document.Document, p Prices) {
	for i := range d.Results {
		if r := &d.Results[i]; len(r.RateSteps) > 0 && r.Knee == nil {
			r.Knee = FindKnee(r.RateSteps)
		}
	}
	d.Cost = RunCost(d, p)
	d.Findings = Findings(&Facts{Doc: d, Cost: d.Cost, Table: tableOf(d.Cost, p)})
}

// AnnotateStrategies prices d (each strategy too) and sets its findings.
func AnnotateStrategies(d *document.StrategiesDocument, p Prices) {
	d.Cost = StrategiesCost(d, p)
	d.Findings = Findings(&Facts{Doc: d, Cost: d.Cost, Table: tableOf(d.Cost, p)})
}

// AnnotateComparison sets c's findings.
func AnnotateComparison(c *Comparison) {
	c.Findings = Findings(&Facts{Comparison: c})
}

// rttMs is the known round-trip time: the lab's, else 0.
func (f *Facts) rttMs() float64 {
	if d, ok := f.Doc.(*document.Document); ok && d.Lab != nil {
		return d.Lab.RTTms
	}
	return 0
}

func finding(id, sev, text string, ev map[string]float64) document.Finding {
	for k, v := range ev {
		ev[k] = document.Finite(v)
	}
	return document.Finding{ID: id, Severity: sev, Text: text, Evidence: ev}
}

func tableOf(c *document.Cost, p Prices) *PriceTable {
	if c == nil {
		return nil
	}
	return p[c.Provider]
}

// ColdStep is the step whose first requests best show a cold client
// against a warm one: a GET where there is one, with the most later
// requests; nil when no step has both.
func ColdStep(d *document.Document) *document.Result {
	var best *document.Result
	for i := range d.Results {
		r := &d.Results[i]
		if r.FirstRequest.Count == 0 || r.LaterRequests.Count == 0 {
			continue
		}
		isGet, bestGet := r.Op == "get", best != nil && best.Op == "get"
		if best == nil || isGet && !bestGet || isGet == bestGet && r.LaterRequests.Count > best.LaterRequests.Count {
			best = r
		}
	}
	return best
}
