package lab

import (
	"slices"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/lab/server"
	"github.com/objbench/objbench/internal/usage"
)

// withExpress adds the directory bucket to info, the lab block of api.
func (l *Lab) withExpress(api string, info *document.LabInfo) *document.LabInfo {
	if l.express != nil && api == "s3" {
		info.DirectoryBucket, info.SessionLifetimeS = l.express.Bucket, l.express.Lifetime.Seconds()
	}
	return info
}

// expressEnv points a program at the directory bucket: OBJBENCH_BUCKET,
// which the programs under examples/clients read (none without one).
func (l *Lab) expressEnv() []string {
	if l.express == nil {
		return nil
	}
	return []string{"OBJBENCH_BUCKET=" + l.express.Bucket}
}

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

// checkExpress is the rule for a directory bucket's settings: the
// embedded S3 server's (not an upstream's, not another API's), sessions of
// at least a second.
func checkExpress(lf Settings, apis []string) error {
	if !lf.Express {
		if lf.SessionLifetime != 0 {
			return usage.Fieldf("{SessionLifetime} is a directory bucket's: add {Express}")
		}
		return nil
	}
	switch {
	case lf.Upstream != "":
		return usage.Fieldf("{Express} makes the embedded S3 server's bucket a directory bucket; not with {Upstream}")
	case apis != nil && !slices.Contains(apis, "s3"):
		return usage.Fieldf("{Express} is an S3 bucket's class: serve s3")
	case lf.SessionLifetime != 0 && lf.SessionLifetime < time.Second:
		return usage.Fieldf("{SessionLifetime} %s: use 1s or more (S3's is 5m)", lf.SessionLifetime)
	}
	return nil
}

// expressLimits are a directory bucket's request limits: the class's
// (server.ExpressGetsPerSecond and ExpressPutsPerSecond per bucket, no
// partitions to split) where the user gave none for s3, else the user's
// rates over the whole bucket: a directory bucket's limits are its own,
// not its prefixes' (a user's explicit prefix depth is kept).
func expressLimits(ls server.Limits) server.Limits {
	out := slices.Clone(ls)
	if l := out.For("s3"); l != nil {
		if l.Depth == 0 {
			l.Depth = server.DepthBucket
		}
		return out
	}
	return append(out, server.Limit{API: "s3", Read: server.ExpressGetsPerSecond, Write: server.ExpressPutsPerSecond,
		Scale: 1, Depth: server.DepthBucket})
}
