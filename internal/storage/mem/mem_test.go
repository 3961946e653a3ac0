package mem

import (
	"context"
	"testing"

	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/storagetest"
)

func TestConformance(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Backend { return New("conformance", true) })
}

func TestMissingBucket(t *testing.T) {
	b := New("never-created", false)
	ok, err := b.BucketExists(context.Background())
	if ok || err != nil {
		t.Errorf("BucketExists = %v, %v", ok, err)
	}
	if err := b.Delete(context.Background(), "k"); storage.Classify(err) != storage.ClassNotFound {
		t.Errorf("delete in a missing bucket: %v", err)
	}
}
