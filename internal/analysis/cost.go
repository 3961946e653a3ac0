package analysis

import (
	"math"
	"strings"

	"github.com/objbench/objbench/internal/document"
)

// usage is what one operation's requests amount to, for pricing.
type usage struct {
	op          string
	objects     int64 // operations, successful or not
	requests    int64 // billed HTTP requests
	egressBytes int64
	uploadBytes int64 // bytes written, for a table with a per-GB upload charge
}

// price turns usages into a Cost at table t (nil when t is nil or there
// is nothing to price), per hour over wallS, the wall time of the steps
// that made them (each step once: the usages of a mixed step's ops share
// its wall time). Failed operations are billed one request each, as
// providers bill authenticated requests that fail.
func price(key string, t *PriceTable, us []usage, wall float64) *document.Cost {
	if t == nil || len(us) == 0 {
		return nil
	}
	c := &document.Cost{Provider: key, Prices: t.Name, PriceSource: t.Source, PriceDate: t.Date, Currency: "USD"}
	idx := map[string]int{}
	for _, u := range us {
		req := float64(u.requests) * t.PerThousand[u.op] / 1000
		egress, data := 0.0, 0.0
		if t.GBBytes > 0 {
			egress = float64(u.egressBytes) / t.GBBytes * t.EgressPerGB
			data = (float64(u.uploadBytes)*t.UploadPerGB + float64(u.egressBytes)*t.RetrievalPerGB) / t.GBBytes
		}
		i, ok := idx[u.op]
		if !ok {
			i = len(c.ByOp)
			idx[u.op] = i
			c.ByOp = append(c.ByOp, document.OpCost{Op: u.op, Class: opClass(u.op)})
		}
		o := &c.ByOp[i]
		o.Objects += u.objects
		o.Requests += u.requests
		o.RequestsUSD += req
		o.EgressUSD += egress
		o.DataUSD += data
		c.Objects += u.objects
		if t.UploadPerGB > 0 { // a table without the charge keeps its documents as they were
			c.UploadBytes += u.uploadBytes
		}
		c.DataUSD += data
		c.Requests += u.requests
		c.RequestsUSD += req
		c.EgressBytes += u.egressBytes
		c.EgressUSD += egress
	}
	// Scale from the unrounded sums; round only what is printed.
	for i := range c.ByOp {
		o := &c.ByOp[i]
		if o.Objects > 0 {
			o.PerMillionObjectsUSD = roundMicro((o.RequestsUSD + o.EgressUSD + o.DataUSD) / float64(o.Objects) * 1e6)
		}
		o.RequestsUSD, o.EgressUSD, o.DataUSD = roundMicro(o.RequestsUSD), roundMicro(o.EgressUSD), roundMicro(o.DataUSD)
	}
	total := c.RequestsUSD + c.EgressUSD + c.DataUSD
	if c.Objects > 0 {
		c.PerMillionObjectsUSD = roundMicro(total / float64(c.Objects) * 1e6)
	}
	if wall > 0 {
		c.PerHourUSD = roundMicro(total / wall * 3600)
	}
	c.RequestsUSD, c.EgressUSD, c.DataUSD, c.TotalUSD = roundMicro(c.RequestsUSD), roundMicro(c.EgressUSD), roundMicro(c.DataUSD), roundMicro(total)
	c.WallS = wall
	return c
}

// roundMicro rounds dollars to a millionth, so that sums of float prices
// print exactly ($0.0005, not $0.0004999999).
func roundMicro(v float64) float64 { return math.Round(v*1e6) / 1e6 }

func opClass(op string) string {
	switch op {
	case "put", "list":
		return "write/list (class A)"
	case "delete":
		return "delete (free)"
	}
	return "read (class B)"
}

// forEnvelope is the price table of a document's provider (a lab run is
// priced as the API the lab served).
func (p Prices) forEnvelope(e *document.Envelope) (string, *PriceTable, bool) {
	lab := ""
	if e.Lab != nil {
		lab = e.Lab.API
	}
	key, t, ok := p.For(e.Target.Provider, lab)
	directory := isDirectoryBucketURL(e.Target.URL) || e.Lab != nil && e.Lab.DirectoryBucket != ""
	if x, has := p[expressKey]; has && key == "s3" && directory {
		return expressKey, x, true
	}
	return key, t, ok
}

// expressKey is S3 Express One Zone's price table, for a directory bucket.
const expressKey = "s3express"

// isDirectoryBucketURL says whether an s3:// target URL names a directory
// bucket (bucket-base-name--zone-id--x-s3): the lab's with --express too.
func isDirectoryBucketURL(u string) bool {
	rest, ok := strings.CutPrefix(u, "s3://")
	if !ok {
		return false
	}
	bucket, _, _ := strings.Cut(rest, "/")
	return strings.HasSuffix(bucket, "--x-s3")
}

// RunCost is what a run's measured requests cost at p's list prices, nil
// when p has no table for its provider.
func RunCost(d *document.Document, p Prices) *document.Cost {
	key, t, ok := p.forEnvelope(&d.Envelope)
	if !ok {
		return nil
	}
	var us []usage
	for _, r := range d.Results {
		u := usage{op: r.Op, objects: r.Count + r.Errors,
			requests: int64(math.Round(float64(r.Count)*r.RequestsPerOp)) + r.Errors}
		switch r.Op {
		case "get":
			u.egressBytes = r.Count * r.SizeBytes
		case "put":
			u.uploadBytes = r.Count * r.SizeBytes
		}
		us = append(us, u)
	}
	return price(key, t, us, document.StepsWallS(d.Results))
}

// StrategiesCost prices a strategies document, and sets each row's cost
// per million objects. Each strategy is timed on its own, one after the
// other, so the hourly rate is over the sum of their wall times.
func StrategiesCost(d *document.StrategiesDocument, p Prices) *document.Cost {
	key, t, ok := p.forEnvelope(&d.Envelope)
	if !ok {
		return nil
	}
	var us []usage
	var wall float64
	for i := range d.Strategies {
		r := &d.Strategies[i]
		if !r.Available {
			continue
		}
		n := int64(r.ObjectsPerS*r.WallS + 0.5)
		wall += r.WallS
		u := usage{op: r.Op, objects: n + r.Errors,
			requests: int64(math.Round(float64(n)*r.RequestsPerObject)) + r.Errors}
		switch r.Op {
		case "get":
			u.egressBytes = n * r.SizeBytes
		case "put":
			u.uploadBytes = n * r.SizeBytes
		}
		us = append(us, u)
		if one := price(key, t, []usage{u}, r.WallS); one != nil {
			r.CostPerMillionUSD = one.PerMillionObjectsUSD
		}
	}
	return price(key, t, us, wall)
}
