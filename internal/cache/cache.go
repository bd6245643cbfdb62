// Package cache says where gepcheck keeps what it builds once (the tools
// of a local control plane, implementations' binaries): $GEPCHECK_CACHE, else
// ~/.cache/gepcheck (os.UserCacheDir). Never inside the repository.
package cache

import (
	"os"
	"path/filepath"
)

// Dir is the directory elem under gepcheck's cache.
func Dir(elem ...string) (string, error) {
	root := os.Getenv("GEPCHECK_CACHE")
	if root == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		root = filepath.Join(c, "gepcheck")
	}
	return filepath.Join(append([]string{root}, elem...)...), nil
}
