package analysis

import "github.com/objbench/objbench/internal/document"

// OpUsage is what one price class of an explained program's requests
// amounts to: objects moved, requests billed, bytes downloaded.
type OpUsage struct {
	Op                             string // put, get, head, list, delete
	Objects, Requests, EgressBytes int64
}

// UsageCost prices usages at the list prices of env's provider (the lab
// priced as its API), over wallS; nil without a price table.
func UsageCost(env *document.Envelope, us []OpUsage, wallS float64, p Prices) *document.Cost {
	key, t, ok := p.forEnvelope(env)
	if !ok {
		return nil
	}
	var in []usage
	for _, u := range us {
		in = append(in, usage{op: u.Op, objects: u.Objects, requests: u.Requests, egressBytes: u.EgressBytes})
	}
	return price(key, t, in, wallS)
}
