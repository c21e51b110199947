package pkg

import (
	"errors"
	"fmt"
)

var (
	ErrA             = errors.New("pkg: a")
	Timeout    error = nil
	Wrapped          = fmt.Errorf("pkg: %w", ErrA)
	NotAnError       = 3
	errHidden        = errors.New("pkg: hidden")
)

var ErrB, ErrC = errors.New("pkg: b"), errors.New("pkg: c")
