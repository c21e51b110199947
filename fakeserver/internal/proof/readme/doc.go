// Package readmetest holds the test that keeps README.md's tour true: it runs the tour's shell
// blocks in order against a fake started as the README says and compiles its Go blocks. It has
// no code of its own.
package readmetest
