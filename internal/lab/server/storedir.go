package server

import (
	"os"
	"path/filepath"
)

// storeDirPattern names the lab stores' folders in the temporary folder.
const storeDirPattern = "objbench-store-*"

// storeDir is a lab store's folder, held (locked) while the lab runs, so
// that a later lab can tell a killed lab's folder from a running one's.
type storeDir struct {
	path string
	lock *os.File
}

// newStoreDir removes the folders labs killed before their exit left
// behind, then makes and locks a new one.
func newStoreDir() (*storeDir, error) {
	sweepStoreDirs()
	// Made under another name and locked before it takes its own, so that
	// another lab's sweep never sees it unlocked.
	tmp, err := os.MkdirTemp("", "objbench-new-store-*")
	if err != nil {
		return nil, err
	}
	lock, err := lockDir(tmp)
	if err != nil {
		_ = os.RemoveAll(tmp)
		return nil, err
	}
	path := filepath.Join(filepath.Dir(tmp), "objbench-store-"+filepath.Base(tmp)[len("objbench-new-store-"):])
	if err := os.Rename(tmp, path); err != nil {
		_ = os.RemoveAll(tmp)
		if lock != nil {
			lock.Close()
		}
		return nil, err
	}
	return &storeDir{path: path, lock: lock}, nil
}

// Close removes the folder and every object in it.
func (d *storeDir) Close() error {
	err := os.RemoveAll(d.path)
	if d.lock != nil {
		d.lock.Close()
	}
	return err
}

// sweepStoreDirs removes every store folder no running lab holds.
func sweepStoreDirs() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), storeDirPattern))
	for _, dir := range dirs {
		if lock, err := lockDir(dir); err == nil && lock != nil { // nobody holds it
			_ = os.RemoveAll(dir)
			lock.Close()
		}
	}
}
