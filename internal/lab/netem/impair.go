package netem

import (
	"errors"
	"math/rand/v2"
)

// GilbertElliott is bursty loss as Linux's netem models it (`tc qdisc …
// netem loss gemodel p r 1-h 1-k`): a wire in a good or a bad state, each
// packet lost with the state's probability, then the state moves on. Losses
// come in bursts of about 1/R packets (with BadLoss 100%), and the mean loss
// is (P·BadLoss + R·GoodLoss)/(P+R). The zero value is no bursty loss.
type GilbertElliott struct {
	// P is the chance per packet of moving from the good state to the bad.
	P float64
	// R is the chance per packet of moving from the bad state back.
	R float64
	// BadLoss is the loss probability in the bad state (netem's 1-h).
	BadLoss float64
	// GoodLoss is the loss probability in the good state (netem's 1-k).
	GoodLoss float64
}

// On says whether the model loses anything.
func (g GilbertElliott) On() bool { return g.P > 0 && g.BadLoss > 0 || g.GoodLoss > 0 }

// BadShare is the long-run share of packets sent in the bad state.
func (g GilbertElliott) BadShare() float64 {
	if g.P == 0 {
		return 0
	}
	return g.P / (g.P + g.R)
}

// MeanLoss is the long-run loss probability.
func (g GilbertElliott) MeanLoss() float64 {
	b := g.BadShare()
	return b*g.BadLoss + (1-b)*g.GoodLoss
}

func (g GilbertElliott) check() error {
	for _, v := range []float64{g.P, g.R, g.BadLoss, g.GoodLoss} {
		if !(v >= 0 && v <= 1) {
			return errors.New("netem: the Gilbert-Elliott model's probabilities must be within 0-100%")
		}
	}
	if g.P > 0 && g.R == 0 {
		return errors.New("netem: a Gilbert-Elliott model with r = 0 never leaves its bad state")
	}
	return nil
}

// geState is one direction's Gilbert-Elliott chain.
type geState struct{ bad bool }

// lose decides one packet by the state it finds the wire in, then moves
// the state on, in the order Linux's loss_gilb_ell does.
func (s *geState) lose(g GilbertElliott, rng *rand.Rand) bool {
	if !s.bad {
		if rng.Float64() < g.P {
			s.bad = true
		}
		return rng.Float64() < g.GoodLoss
	}
	if rng.Float64() < g.R {
		s.bad = false
	}
	return rng.Float64() < g.BadLoss
}

// Reorder is netem's `reorder P% [corr%]` (with its default gap of 1): a
// packet is sent at once, ahead of the packets waiting out the delay, with
// probability Share; the others take the delay. Reordering therefore needs
// a delay, and a packet jumps ahead by as many packets as were sent within
// one delay before it. Correlation makes jumps come in runs: each packet
// repeats the decision of the one before it with that probability, else
// draws afresh, so the share stays Share (netem's own correlation, a
// weighted mean of draws, lowers it: 25% with 50% sends about 7% ahead).
// The zero value is no reordering.
type Reorder struct {
	Share, Correlation float64
}

// correlated is a draw that repeats the previous outcome with probability
// rho, else is a fresh one with probability p.
type correlated struct{ last bool }

func (c *correlated) next(p, rho float64, rng *rand.Rand) bool {
	if rho > 0 && rng.Float64() < rho {
		return c.last
	}
	c.last = rng.Float64() < p
	return c.last
}

// Check is the rule every Path is held to (New and NewPipe refuse a
// Path that breaks it), for callers to check theirs first.
func (p Path) Check() error {
	switch {
	case p.Delay < 0 || p.Jitter < 0 || p.Rate < 0 || p.Queue < 0 || !(p.Loss >= 0 && p.Loss <= 1):
		return errors.New("netem: delay, jitter, rate and queue must not be negative, and loss must be within 0-100%")
	case p.Loss > 0 && p.Bursty.On():
		return errors.New("netem: random loss and the Gilbert-Elliott model are one loss model or the other")
	case !(p.Reorder.Share >= 0 && p.Reorder.Share <= 1 && p.Reorder.Correlation >= 0 && p.Reorder.Correlation < 1):
		return errors.New("netem: reorder must be within 0-100% and its correlation under 100%")
	case p.Reorder.Share > 0 && p.Delay == 0:
		return errors.New("netem: reordering needs a delay (reordered packets skip it)")
	case !(p.Duplicate >= 0 && p.Duplicate <= 1):
		return errors.New("netem: duplicate must be within 0-100%")
	}
	return p.Bursty.check()
}
