package netem

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// preciseTimer is a timerfd read through Go's poller: the kernel's
// high-resolution timer wakes the poller when it expires, where Go's own
// timers wait in epoll for whole milliseconds (see Sleep).
type preciseTimer struct {
	fd  int
	f   *os.File
	buf [8]byte
}

// newPreciseTimer is nil where the kernel refuses a timerfd.
func newPreciseTimer() *preciseTimer {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil
	}
	return &preciseTimer{fd: fd, f: os.NewFile(uintptr(fd), "timerfd")}
}

// wait blocks for d; false once interrupt was called (then at once ever after).
func (t *preciseTimer) wait(d time.Duration) bool { return t.arm(d) && t.block() }

// arm sets the timer to expire in d, replacing any earlier setting: a wait
// in block then ends at the new time. It may be called while another
// goroutine blocks.
func (t *preciseTimer) arm(d time.Duration) bool {
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(max(int64(d), 1))}
	return unix.TimerfdSettime(t.fd, 0, &spec, nil) == nil
}

// block waits for the armed timer; false once interrupt was called.
func (t *preciseTimer) block() bool {
	_, err := t.f.Read(t.buf[:])
	return err == nil
}

// interrupt ends the current wait and every later one.
func (t *preciseTimer) interrupt() { _ = t.f.SetReadDeadline(time.Unix(1, 0)) }

func (t *preciseTimer) close() { _ = t.f.Close() }
