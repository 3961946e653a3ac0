package lab

import (
	"time"

	"github.com/objbench/objbench/internal/lab/server"
)

// Express is the lab's directory bucket (its name, session lifetime and
// counts); nil unless Config.Express.
func (l *Lab) Express() *server.Express { return l.express }

// serviceTime is the time api's server adds before each response: the
// configured one, else on a directory bucket the class's own (no measured
// profile's draws either: those are a real bucket's).
func (l *Lab) serviceTime(api string) time.Duration {
	if l.cfg.ServiceTime == 0 && l.cfg.Service == nil && api == "s3" && l.express != nil {
		return server.ExpressServiceTime
	}
	return l.cfg.ServiceTime
}
