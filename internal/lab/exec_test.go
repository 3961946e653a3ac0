package lab

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/lab/server"
)

// TestExecLeavesTheUsersAWSIdentityOut: a program under lab exec gets the
// lab's S3 keys and none of the user's session token, profile or role (a
// missing profile made boto3 refuse to start; a token went to the lab with
// the lab's keys), while the rest of the environment passes through.
func TestExecLeavesTheUsersAWSIdentityOut(t *testing.T) {
	for _, name := range awsIdentity {
		t.Setenv(name, "users-own-"+strings.ToLower(name))
	}
	t.Setenv("OBJBENCH_TEST_KEPT", "kept")
	rtt := time.Millisecond
	l := startLab(t, Config{RTT: &rtt})
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if code, err := l.ExecEnv(ctx, []string{"env"}, nil, nil, &out, &errb); err != nil || code != 0 {
		t.Fatalf("env: exit %d, %v: %s", code, err, errb.String())
	}
	env := strings.Split(out.String(), "\n")
	for _, kv := range env {
		if strings.Contains(kv, "users-own-") {
			t.Errorf("the program got the user's %s", strings.SplitN(kv, "=", 2)[0])
		}
	}
	for _, want := range []string{"OBJBENCH_TEST_KEPT=kept", "AWS_ACCESS_KEY_ID=" + labKeys.AccessKeyID} {
		if !slices.Contains(env, want) {
			t.Errorf("the program's environment has no %s", want)
		}
	}

	// An upstream server's program keeps its own identity.
	up := &Lab{cfg: Config{Upstream: &server.Upstream{}}}
	kept := up.inherited([]string{"AWS_PROFILE=prod", "AWS_SESSION_TOKEN=t"})
	if len(kept) != 2 {
		t.Errorf("upstream: the program kept %v, want its whole environment", kept)
	}
}
