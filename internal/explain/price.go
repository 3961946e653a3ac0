package explain

import (
	"slices"
	"strings"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
)

// Price sets the cost of d's requests at p's list prices (the lab priced
// as the API most of its requests used) and the cost per 1,000 objects.
func Price(d *document.ExplainDocument, p analysis.Prices) {
	e := &d.Explain
	byOp := map[string]*analysis.OpUsage{}
	apis := map[string]int{}
	for _, c := range e.Conns {
		for _, r := range c.Requests {
			op := Op{Name: r.Operation, Price: priceOf(r.Operation)}
			apis[c.API]++
			u := byOp[op.Price]
			if u == nil {
				u = &analysis.OpUsage{Op: op.Price}
				byOp[op.Price] = u
			}
			u.Requests++
			if r.Object {
				u.Objects++
			}
			if op.Price == "get" {
				u.EgressBytes += r.BytesOut
			}
		}
	}
	if len(byOp) == 0 {
		return
	}
	env := d.Envelope
	if env.Lab != nil {
		l := *env.Lab
		best := ""
		for api, n := range apis {
			if best == "" || n > apis[best] || n == apis[best] && api < best {
				best = api
			}
		}
		l.API = best
		env.Lab = &l
	}
	var us []analysis.OpUsage
	for _, k := range []string{"put", "get", "head", "list", "delete"} {
		if u := byOp[k]; u != nil {
			us = append(us, *u)
		}
	}
	e.Cost = analysis.UsageCost(&env, us, e.WallS, p)
	if e.Cost != nil && e.Objects > 0 {
		e.CostUSDPer1000Objects = (e.Cost.RequestsUSD + e.Cost.EgressUSD) / float64(e.Objects) * 1000
	}
}

// priceOf is the price class of an operation name.
func priceOf(name string) string {
	switch name {
	case "DeleteObjects", "PutBlockList":
		return "put"
	case "GetBlockList", "CreateSession": // a directory bucket's session: S3 Express's "all other requests"
		return "get"
	}
	switch {
	case slices.Contains([]string{"HeadObject", "HeadBucket", "XML HeadObject", "GetBlobProperties"}, name):
		return "head"
	case containsAny(name, "List"):
		return "list"
	case containsAny(name, "Delete", "Abort", "Cancel"):
		return "delete"
	case containsAny(name, "Get"):
		return "get"
	}
	return "put"
}

func containsAny(s string, subs ...string) bool {
	return slices.ContainsFunc(subs, func(x string) bool { return strings.Contains(s, x) })
}
