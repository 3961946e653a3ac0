package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/objbench/objbench/internal/lab/netns"
	"github.com/objbench/objbench/internal/lab/server"
)

// ErrCommandNotFound says lab exec's command is not on PATH.
var ErrCommandNotFound = errors.New("command not found")

// Env is the environment that points the AWS, Google and Azure SDKs (and
// curl, Python, Node.js with caFile) at the lab's endpoints as the program
// Exec runs reaches them (ProgramEndpoint).
func (l *Lab) Env(caFile string) []string {
	var env []string
	if u := l.ProgramEndpoint("s3"); u != "" {
		env = append(env, "AWS_ENDPOINT_URL="+u, "AWS_REGION=us-east-1", "AWS_DEFAULT_REGION=us-east-1")
		// An upstream server's credentials are the program's own.
		if c := l.Keys("s3"); c != nil {
			env = append(env, "AWS_ACCESS_KEY_ID="+c.AccessKeyID, "AWS_SECRET_ACCESS_KEY="+c.SecretAccessKey)
		}
		if caFile != "" {
			env = append(env, "AWS_CA_BUNDLE="+caFile)
		}
		env = append(env, l.expressEnv()...)
	}
	if u := l.ProgramEndpoint("gcs"); u != "" {
		env = append(env, "STORAGE_EMULATOR_HOST="+u)
	}
	if u := l.ProgramEndpoint("azure"); u != "" {
		env = append(env, "AZURE_STORAGE_CONNECTION_STRING="+server.AzureConnectionString(l.scheme(), u))
	}
	if caFile != "" {
		env = append(env, "SSL_CERT_FILE="+caFile, "REQUESTS_CA_BUNDLE="+caFile, "NODE_EXTRA_CA_CERTS="+caFile, "CURL_CA_BUNDLE="+caFile)
	}
	return env
}

// awsIdentity are the variables by which an AWS SDK finds an identity other
// than the keys in AWS_ACCESS_KEY_ID: a session token (which the SDKs send
// along with the lab's keys), a profile (which boto3 refuses to start
// without when it is missing here), a role or a container's credentials.
var awsIdentity = []string{"AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE",
	"AWS_ROLE_ARN", "AWS_ROLE_SESSION_NAME", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
	"AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_AUTHORIZATION_TOKEN", "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"}

// inherited is the part of environ the program keeps. Where the lab gives
// the program its own S3 keys, the user's AWS identity stays out: the
// user's real token has no business reaching the lab, and a profile or
// role would only make the program's SDK fail or pick other keys. An
// upstream server's program keeps its whole environment: its keys are its
// own.
func (l *Lab) inherited(environ []string) []string {
	if l.Keys("s3") == nil {
		return environ
	}
	return slices.DeleteFunc(environ, func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(awsIdentity, name)
	})
}

// Exec runs argv with the lab's environment added (Env, and the CA
// certificate written to a temporary file with TLS), its standard streams
// passed through, and returns its exit status. Cancelling ctx stops it
// (SIGTERM, then SIGKILL after 5 s) with its process group; what it leaves
// running in its group when it exits is stopped too. The lab's Notice, if
// any, goes to stderr first.
func (l *Lab) Exec(ctx context.Context, argv []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if l.notice != "" {
		fmt.Fprintln(stderr, "objbench: lab exec: "+l.notice)
	}
	return l.ExecEnv(ctx, argv, nil, stdin, stdout, stderr)
}

// ExecEnv is Exec with extra variables added after the lab's.
func (l *Lab) ExecEnv(ctx context.Context, argv, extra []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if len(argv) == 0 {
		return 0, errors.New("no command to run")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return 0, fmt.Errorf("%q: %w", argv[0], ErrCommandNotFound)
	}
	caFile := ""
	if pem := l.CAPEM(); pem != nil {
		dir, err := os.MkdirTemp("", "objbench-lab-")
		if err != nil {
			return 0, err
		}
		defer os.RemoveAll(dir)
		caFile = filepath.Join(dir, "ca.pem")
		if err := os.WriteFile(caFile, pem, 0o644); err != nil {
			return 0, err
		}
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Env = append(append(l.inherited(os.Environ()), l.Env(caFile)...), extra...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	start := cmd.Start
	if l.kn != nil { // the program's own TCP on the wire: start it in its namespace
		start = func() error { return l.kn.pair.Client.Start(cmd) }
	}
	return RunGroup(ctx, cmd, func(*exec.Cmd) error { return start() }, argv)
}

// RunGroup starts cmd with start (cmd.Start, or into a namespace) in a
// process group of its own and waits for it; argv names it in errors.
// Cancelling ctx stops the group (SIGTERM, SIGKILL after 5 s), and what the
// command leaves running in its group when it exits is stopped with it:
// it would talk to a lab or a path that is about to stop. The command's
// exit status is the code; an error only says it could not run.
func RunGroup(ctx context.Context, cmd *exec.Cmd, start func(*exec.Cmd) error, argv []string) (int, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := start(cmd); err != nil {
		return 0, fmt.Errorf("start %s: %w", argv[0], err)
	}
	exited := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			}
		case <-exited:
		}
	}()
	err := cmd.Wait()
	close(exited)
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if code, ok := netns.ExitCode(err); ok {
		return code, nil
	}
	return 0, fmt.Errorf("%s: %s", strings.Join(argv, " "), err)
}
