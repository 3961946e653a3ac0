//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// rootlessUID is the unprivileged user the rootless tests run objbench as:
// an id no account has, so nothing of anyone's is reachable with it.
const rootlessUID = 54321

// rootlessEnv is a directory the unprivileged user can use: this binary as
// objbench, a home of the user's own, the Nagle client, and a TUN device
// node of mode 0666 (as the distributions ship /dev/net/tun) that asUser
// mounts over /dev/net/tun in a private mount namespace, so the host's
// device keeps its mode.
type rootlessEnv struct {
	dir, bin, home, tun string
}

func newRootlessEnv(t *testing.T) *rootlessEnv {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("runs objbench as a created unprivileged user: needs root to make it and its TUN device node")
	}
	for _, tool := range []string{"unshare", "setpriv", "mount"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not on PATH (util-linux): it gives the user a TUN device in a private mount namespace", tool)
		}
	}
	if _, err := user.LookupId(strconv.Itoa(rootlessUID)); err == nil {
		t.Skipf("uid %d belongs to an account here: the test wants an unused one", rootlessUID)
	}
	if b, err := os.ReadFile("/proc/sys/user/max_user_namespaces"); err == nil && strings.TrimSpace(string(b)) == "0" {
		t.Skip("user namespaces disabled here (user.max_user_namespaces=0)")
	}
	dir, err := os.MkdirTemp("", "objbench-rootless-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	e := &rootlessEnv{dir: dir, bin: filepath.Join(dir, "objbench"), home: filepath.Join(dir, "home"), tun: filepath.Join(dir, "tun")}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	copyFile(t, self, e.bin, 0o755)
	copyFile(t, "../../internal/lab/testdata/nagle.py", filepath.Join(dir, "nagle.py"), 0o644)
	if err := os.Mkdir(e.home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(e.home, rootlessUID, rootlessUID); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mknod(e.tun, unix.S_IFCHR|0o666, int(unix.Mkdev(10, 200))); err != nil {
		t.Skipf("no TUN device node for the user (%v)", err)
	}
	if err := os.Chmod(e.tun, 0o666); err != nil { // past the umask
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return e
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, mode); err != nil {
		t.Fatal(err)
	}
}

// asUser runs objbench with args as the unprivileged user, from e.dir;
// withTUN gives it a TUN device it can open (else /dev/net/tun is the
// host's, mode 0600 here). It returns stdout and stderr.
func (e *rootlessEnv) asUser(t *testing.T, withTUN bool, env []string, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	id := strconv.Itoa(rootlessUID)
	user := append([]string{"setpriv", "--reuid=" + id, "--regid=" + id, "--clear-groups", "--inh-caps=-all", e.bin}, args...)
	argv := user
	if withTUN {
		argv = append([]string{"unshare", "--mount", "--propagation", "private", "sh", "-c",
			`mount --bind "$0" /dev/net/tun && exec "$@"`, e.tun}, user...)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = e.dir
	cmd.Env = append([]string{"OBJBENCH_TEST_BE_MAIN=1", "HOME=" + e.home, "XDG_DATA_HOME=" + e.home,
		"PATH=" + os.Getenv("PATH"), "LANG=C"}, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("objbench %s as uid %d: %v\n%s", strings.Join(args, " "), rootlessUID, err, errb.String())
	}
	return out.String(), errb.String()
}

// labBlock is the part of run's JSON these tests read.
type labBlock struct {
	Lab struct {
		Network     string `json:"network"`
		Rootless    bool   `json:"rootless"`
		NetworkNote string `json:"network_note"`
	} `json:"lab"`
}

func runLabJSON(t *testing.T, out string) labBlock {
	t.Helper()
	var d labBlock
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("run's JSON: %v: %.300s", err, out)
	}
	return d
}

// quickLabRun is a short run on the lab behind a bandwidth cap, where
// auto takes the netns path.
var quickLabRun = []string{"run", "lab", "--rtt", "40ms", "--bandwidth", "200Mbit", "--workload", "latency",
	"--gets", "5", "--objects", "2", "--op-sizes", "0", "--op-count", "2", "--no-save", "-q", "--json"}

// TestRootlessNamespaces is issue 39's done-when, as an unprivileged user
// on a kernel that allows user namespaces: run lab behind a bandwidth cap
// reports netns (rootless); the program lab exec runs is the user's own
// id with no capabilities; the Nagle client takes two round trips plus
// the delayed ACK per request, curl's time_connect is one round trip.
func TestRootlessNamespaces(t *testing.T) {
	e := newRootlessEnv(t)

	out, stderr := e.asUser(t, true, nil, quickLabRun...)
	d := runLabJSON(t, out)
	if d.Lab.Network != "netns" || !d.Lab.Rootless || d.Lab.NetworkNote != "" {
		t.Fatalf("run lab as uid %d: network %q, rootless %v, note %q; want netns, rootless\n%s",
			rootlessUID, d.Lab.Network, d.Lab.Rootless, d.Lab.NetworkNote, stderr)
	}

	out, _ = e.asUser(t, true, nil, "lab", "exec", "--rtt", "20ms", "--", "sh", "-c", "id -u; grep CapEff /proc/self/status")
	if f := strings.Fields(out); len(f) != 3 || f[0] != strconv.Itoa(rootlessUID) || f[2] != "0000000000000000" {
		t.Errorf("the program's id and capabilities: %q; want uid %d and none", out, rootlessUID)
	}

	if testing.Short() || raceEnabled {
		t.Skip("timing checks: they run in the timing step, without -race")
	}
	rtt := 80 * time.Millisecond
	if _, err := exec.LookPath("python3"); err == nil {
		out, _ = e.asUser(t, true, []string{"NODELAY=0"}, "lab", "exec", "--rtt", "80ms", "--", "python3", "nagle.py", "7")
		var ds []time.Duration
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			f := strings.Fields(line)
			ms, err := strconv.ParseFloat(f[0], 64)
			if err != nil || len(f) < 2 || f[1] != "200" {
				t.Fatalf("nagle.py: %q", line)
			}
			ds = append(ds, time.Duration(ms*float64(time.Millisecond)))
		}
		ds = ds[1:] // a new connection's first request is acknowledged at once (quick-ack)
		slices.Sort(ds)
		med := ds[len(ds)/2]
		t.Logf("Nagle client, rootless lab exec at %v: %v per request (median)", rtt, med)
		// Linux's delayed ACK is 40 ms at least, at most 200 ms; 20 ms of it
		// is the least that shows it is there.
		if med < 2*rtt+20*time.Millisecond || med > 2*rtt+200*time.Millisecond {
			t.Errorf("Nagle client: %v per request, want 2 round trips (%v) plus the delayed ACK", med, 2*rtt)
		}
	}
	if _, err := exec.LookPath("curl"); err == nil {
		// Five connections, the median: the machine's load adds to one.
		out, _ = e.asUser(t, true, nil, "lab", "exec", "--rtt", "80ms", "--", "sh", "-c",
			`for i in 1 2 3 4 5; do curl -s -o /dev/null -w '%{time_connect} %{http_code}\n' "$AWS_ENDPOINT_URL/objbench/"; done`)
		var cs []time.Duration
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			f := strings.Fields(line)
			sec, err := strconv.ParseFloat(f[0], 64)
			if err != nil || len(f) != 2 || f[1] != "200" {
				t.Fatalf("curl: %q", line)
			}
			cs = append(cs, time.Duration(sec*float64(time.Second)))
		}
		slices.Sort(cs)
		connect := cs[len(cs)/2]
		t.Logf("curl, rootless lab exec at %v: time_connect %v (median of %v)", rtt, connect, cs)
		if connect < rtt*9/10 || connect > rtt*11/10 {
			t.Errorf("curl: time_connect %v, want one round trip %v ±10%%", connect, rtt)
		}
	}
}

// TestRootlessWithoutTUN: where the user cannot open /dev/net/tun (mode
// 0600, as here), everything works as before on the netstack path, and
// the one notice says why and the fix (the mode the distributions ship).
func TestRootlessWithoutTUN(t *testing.T) {
	e := newRootlessEnv(t)
	if err := unix.Access("/dev/net/tun", unix.R_OK|unix.W_OK); err != nil {
		t.Skip("no /dev/net/tun here")
	}
	var st unix.Stat_t
	if err := unix.Stat("/dev/net/tun", &st); err != nil || st.Mode&0o006 == 0o006 {
		t.Skip("/dev/net/tun is open to everyone here: nothing to refuse")
	}
	out, stderr := e.asUser(t, false, nil, "lab", "exec", "--rtt", "20ms", "--", "sh", "-c", `echo "$AWS_ENDPOINT_URL"`)
	if !strings.Contains(out, "127.0.0.1") {
		t.Errorf("endpoint %q: want the local endpoint of the netstack path", out)
	}
	if n := strings.Count(stderr, "\n"); n != 1 || !strings.Contains(stderr, "/dev/net/tun is mode 0600") || !strings.Contains(stderr, "chmod 0666 /dev/net/tun") {
		t.Errorf("notice: want one line naming /dev/net/tun's mode and the fix, got %q", stderr)
	}
	out, _ = e.asUser(t, false, nil, quickLabRun...)
	if d := runLabJSON(t, out); d.Lab.Network != "netstack" || d.Lab.Rootless || !strings.Contains(d.Lab.NetworkNote, "/dev/net/tun") {
		t.Errorf("run lab: network %q, rootless %v, note %q; want netstack with the note", d.Lab.Network, d.Lab.Rootless, d.Lab.NetworkNote)
	}
}
