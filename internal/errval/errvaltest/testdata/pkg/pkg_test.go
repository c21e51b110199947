package pkg

import "errors"

var ErrOnlyInTests = errors.New("pkg: test")
