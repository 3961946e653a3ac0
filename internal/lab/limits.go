package lab

import "github.com/objbench/objbench/internal/lab/server"

// limiter is api's request-rate limiter (Config.Limit), made once per
// API; nil when api is not limited.
func (l *Lab) limiter(api string) *server.Limiter {
	lim := l.cfg.Limit.For(api)
	if lim == nil {
		return nil
	}
	if l.limiters == nil {
		l.limiters = map[string]*server.Limiter{}
	}
	if lm := l.limiters[api]; lm != nil {
		return lm
	}
	lm := server.NewLimiter(*lim, nil)
	l.limiters[api] = lm
	return lm
}

// Limiter is api's request-rate limiter, for its partitions' record
// (server.Limiter.Stats); nil when api is not limited.
func (l *Lab) Limiter(api string) *server.Limiter { return l.limiters[api] }

// limitString is api's limit as the document records it; "" when none.
func (l *Lab) limitString(api string) string {
	if lim := l.cfg.Limit.For(api); lim != nil {
		return lim.String()
	}
	return ""
}
