package netns

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// rootlessEnv marks the objbench started in a user namespace of its own
// ("1"), or the probe that checks one can be made ("probe").
const rootlessEnv = "OBJBENCH_USERNS"

// rootless is set once, before anything reads the environment: the
// variable is removed so that a program the lab runs does not inherit it.
var rootless = func() bool {
	v := os.Getenv(rootlessEnv)
	if v == "" {
		return false
	}
	os.Unsetenv(rootlessEnv)
	if v == "probe" {
		// The probe: can a namespace with a TUN device be made here,
		// with the capabilities the user namespace gives?
		if err := Available(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	return v == "1"
}()

// Rootless says whether this objbench runs in the user namespace Relaunch
// made for it: its namespaces are then the user's own, not root's.
func Rootless() bool { return rootless }

// ErrRelaunch says the netns path needs a user namespace, which this
// process (not root, not yet in one) cannot enter: the caller starts
// objbench again in one (Relaunch).
var ErrRelaunch = errors.New("network namespaces need a user namespace: start objbench again in one")

// CanRelaunch says whether Relaunch can give this process network
// namespaces: nil, or which setting prevents it and how to change it.
func CanRelaunch() error {
	if os.Geteuid() == 0 || rootless {
		return errors.New("already privileged")
	}
	if err := userNamespaceSettings("/proc/sys"); err != nil {
		return err
	}
	if err := tunAccess("/dev/net/tun"); err != nil {
		return err
	}
	// A security module may still refuse (or refuse the capabilities
	// inside): make one and a TUN device in it, as Relaunch would.
	cmd, err := relaunchCmd(nil, "probe")
	if err != nil {
		return err
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(out.String())
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("user namespace refused (%s; is an AppArmor or SELinux policy restricting unprivileged user namespaces?)", msg)
	}
	return nil
}

// userNamespaceSettings says which kernel setting under root (/proc/sys)
// disables unprivileged user namespaces, with the command that enables them.
func userNamespaceSettings(root string) error {
	for _, s := range []struct{ file, off, fix string }{
		{"kernel/unprivileged_userns_clone", "0", "1"},
		{"user/max_user_namespaces", "0", "15000"},
		{"kernel/apparmor_restrict_unprivileged_userns", "1", "0"},
	} {
		b, err := os.ReadFile(root + "/" + s.file)
		if err != nil || strings.TrimSpace(string(b)) != s.off {
			continue
		}
		name := strings.ReplaceAll(s.file, "/", ".")
		return fmt.Errorf("unprivileged user namespaces are disabled: %s=%s; enable them with sudo sysctl -w %s=%s", name, s.off, name, s.fix)
	}
	return nil
}

// tunAccess says whether the user can open the TUN device at path, and
// if not, the mode the distributions ship it with.
func tunAccess(path string) error {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return fmt.Errorf("no %s (%v): load the tun module with sudo modprobe tun", path, err)
	}
	if err := unix.Access(path, unix.R_OK|unix.W_OK); err != nil {
		return fmt.Errorf("%s is mode %04o, not readable and writable by uid %d; the distributions ship it 0666: sudo chmod 0666 %s",
			path, st.Mode&0o7777, os.Getuid(), path)
	}
	return nil
}

// relaunchCmd is objbench (this executable) with args, in a user namespace
// of its own where the caller's uid and gid map to themselves and it holds
// the capabilities that make network namespaces and TUN devices there.
func relaunchCmd(args []string, mark string) (*exec.Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("user namespace: %w", err)
	}
	cmd := exec.Command(self, args...)
	cmd.Args[0] = os.Args[0]
	cmd.Env = append(os.Environ(), rootlessEnv+"="+mark)
	uid, gid := os.Getuid(), os.Getgid()
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:                 syscall.CLONE_NEWUSER,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		GidMappingsEnableSetgroups: false,
		// Kept across exec as the user's own id (not a mapped root): the
		// namespaces and devices need them; the program the lab runs
		// gets none (Start).
		AmbientCaps: ambientCaps,
		Pdeathsig:   syscall.SIGKILL,
	}
	return cmd, nil
}

// Relaunch runs objbench again with args in a user namespace of its own
// (as rootless containers do) and returns its exit status. Interrupts
// from the terminal reach it directly (same process group); a SIGTERM or
// SIGHUP sent to this process is passed on.
func Relaunch(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	cmd, err := relaunchCmd(args, "1")
	if err != nil {
		return 0, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	// Pdeathsig follows the thread that started the child: keep it.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("user namespace: %w", err)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case s := <-sigs:
				_ = cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err = cmd.Wait()
	if code, ok := ExitCode(err); ok {
		return code, nil
	}
	return 0, fmt.Errorf("user namespace: %w", err)
}

// Start starts cmd in the namespace. In a user namespace it runs without
// the capabilities objbench holds there: as the user, as outside.
func (n *NS) Start(cmd *exec.Cmd) error {
	if !rootless {
		return n.Do(cmd.Start)
	}
	errc := make(chan error, 1)
	go func() {
		// The thread goes back to the runtime only as it was: in its
		// namespace, with its capabilities; else it ends with this
		// goroutine.
		runtime.LockOSThread()
		home, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			errc <- fmt.Errorf("netns: %w", err)
			return
		}
		defer home.Close()
		if err := unix.Setns(int(n.f.Fd()), unix.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("netns: enter: %w", err)
			return
		}
		restore, err := dropCaps()
		if err != nil {
			errc <- err
			return
		}
		err = cmd.Start()
		if rerr := restore(); rerr != nil {
			errc <- errors.Join(err, rerr)
			return
		}
		if unix.Setns(int(home.Fd()), unix.CLONE_NEWNET) == nil {
			runtime.UnlockOSThread()
		}
		errc <- err
	}()
	return <-errc
}

// ambientCaps are the capabilities relaunchCmd keeps across exec.
var ambientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN, unix.CAP_NET_BIND_SERVICE}

// dropCaps clears the calling thread's ambient and inheritable
// capabilities, so a program it starts has none, and returns what puts
// them back (the thread keeps them in its permitted set meanwhile).
func dropCaps() (restore func() error, err error) {
	var had []uintptr
	for _, c := range ambientCaps {
		if set, _ := unix.PrctlRetInt(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_IS_SET, c, 0, 0); set == 1 {
			had = append(had, c)
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data, saved [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return nil, fmt.Errorf("netns: capabilities: %w", err)
	}
	saved = data
	restore = func() error {
		if err := unix.Capset(&hdr, &saved[0]); err != nil {
			return fmt.Errorf("netns: capabilities: %w", err)
		}
		for _, c := range had {
			if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_RAISE, c, 0, 0); err != nil {
				return fmt.Errorf("netns: ambient capabilities: %w", err)
			}
		}
		return nil
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return nil, fmt.Errorf("netns: clear ambient capabilities: %w", err)
	}
	data[0].Inheritable, data[1].Inheritable = 0, 0
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return nil, errors.Join(fmt.Errorf("netns: capabilities: %w", err), restore())
	}
	return restore, nil
}
