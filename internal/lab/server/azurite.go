package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Azurite's well-known development account. Its key is public, printed in
// Microsoft's documentation; it guards nothing but a local emulator.
const (
	AzuriteAccount = "devstoreaccount1"
	AzuriteKey     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// ErrNoAzurite says the Azure endpoint cannot be served on this machine.
var ErrNoAzurite = errors.New("the lab's Azure endpoint needs Azurite: install it with 'npm install -g azurite' so that azurite-blob is on PATH")

// AzureConnectionString is what an Azure client needs to reach Azurite's
// account at blobEndpoint over scheme (http or https).
func AzureConnectionString(scheme, blobEndpoint string) string {
	return fmt.Sprintf("DefaultEndpointsProtocol=%s;AccountName=%s;AccountKey=%s;BlobEndpoint=%s;",
		scheme, AzuriteAccount, AzuriteKey, blobEndpoint)
}

// Azurite is a running azurite-blob child process.
type Azurite struct {
	// Addr is its loopback address, host:port.
	Addr string
	// Dir is the store folder Azurite keeps its blobs in.
	Dir string
	// Stop ends the process and removes its folder.
	Stop func()
}

// StartAzurite runs azurite-blob as a child process on 127.0.0.1:port (0
// picks a free port) keeping its blobs on disk (--location) in a lab store
// folder (see newStoreDir: removed on Stop, or at the next lab's start
// after a kill), never --inMemoryPersistence, serving HTTPS with certPEM
// and keyPEM when they are given. ErrNoAzurite when it is not on PATH.
func StartAzurite(ctx context.Context, port int, certPEM, keyPEM []byte) (*Azurite, error) {
	bin, err := exec.LookPath("azurite-blob")
	if err != nil {
		return nil, ErrNoAzurite
	}
	sd, err := newStoreDir()
	if err != nil {
		return nil, fmt.Errorf("lab azure: %w", err)
	}
	dir := sd.path
	if port == 0 {
		if port, err = freePort(); err != nil {
			sd.Close()
			return nil, fmt.Errorf("lab azure: %w", err)
		}
	}
	args := []string{"--blobHost", "127.0.0.1", "--blobPort", strconv.Itoa(port), "--location", dir,
		"--disableTelemetry", "--skipApiVersionCheck", "--loose", "--silent"}
	if certPEM != nil {
		cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
		if err := os.WriteFile(cert, certPEM, 0o600); err != nil {
			sd.Close()
			return nil, err
		}
		if err := os.WriteFile(key, keyPEM, 0o600); err != nil {
			sd.Close()
			return nil, err
		}
		args = append(args, "--cert", cert, "--key", key)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = childAttr()
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		sd.Close()
		return nil, fmt.Errorf("lab azure: start azurite-blob: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stop := func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		sd.Close()
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	if err := waitPort(ctx, addr, exited, 60*time.Second); err != nil {
		stop()
		return nil, fmt.Errorf("lab azure: azurite-blob did not start: %w: %s", err, strings.TrimSpace(out.String()))
	}
	return &Azurite{Addr: addr, Dir: dir, Stop: stop}, nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// waitPort waits until addr accepts connections, the child exits, or the bound passes.
func waitPort(ctx context.Context, addr string, exited <-chan struct{}, bound time.Duration) error {
	deadline := time.Now().Add(bound)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-exited:
			return errors.New("it exited")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("no answer on %s within %s", addr, bound)
}
