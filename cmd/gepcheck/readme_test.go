package main

import (
	"io"
	"os"
	"strings"
	"testing"
)

// readmeWords splits a README command line as a shell would for the
// lines README.md holds: words separated by blanks, '…' quoted, the rest
// of the line after an unquoted # a comment, redirections (< FILE,
// > FILE) left out.
func readmeWords(line string) []string {
	var words []string
	var cur strings.Builder
	inWord, quoted, redirect := false, false, false
	flush := func() {
		if inWord && !redirect {
			words = append(words, cur.String())
		} else if inWord {
			redirect = false
		}
		cur.Reset()
		inWord = false
	}
	for _, r := range line {
		switch {
		case quoted:
			if r == '\'' {
				quoted = false
				continue
			}
			cur.WriteRune(r)
		case r == '\'':
			quoted, inWord = true, true
		case r == ' ' || r == '\t':
			flush()
		case r == '#' && !inWord:
			flush()
			return words
		case (r == '<' || r == '>') && !inWord:
			redirect = true
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	flush()
	return words
}

// Every bin/gepcheck line of README.md names a command gepcheck has and
// flags it takes (a fast check in make test; hack/readme-test.sh runs the
// lines in make ci).
func TestReadmeCommandLinesParse(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	n, inSh := 0, false
	for i, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "```sh"):
			inSh = true
			continue
		case strings.HasPrefix(line, "```"):
			inSh = false
			continue
		}
		words := readmeWords(line)
		if !inSh || len(words) == 0 || words[0] != "bin/gepcheck" {
			continue
		}
		n++
		root := newRoot(strings.NewReader(""), io.Discard, io.Discard, func(int) {})
		cmd, rest, err := root.Find(words[1:])
		if err != nil || cmd == root {
			t.Errorf("README.md:%d: no command %v: %v", i+1, words[1:], err)
			continue
		}
		if err := cmd.ParseFlags(rest); err != nil {
			t.Errorf("README.md:%d: %s: %v", i+1, line, err)
		}
		if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
			t.Errorf("README.md:%d: %s: arguments: %v", i+1, line, err)
		}
	}
	// A planted fault: a flag no command has is caught the same way.
	root := newRoot(strings.NewReader(""), io.Discard, io.Discard, func(int) {})
	if cmd, rest, err := root.Find([]string{"simulate", "--semantic", "gep-713"}); err != nil || cmd.ParseFlags(rest) == nil {
		t.Errorf("a misspelt flag parses (%v)", err)
	}
	if n < 30 {
		t.Errorf("%d bin/gepcheck lines in README.md, want the 30 or more it has", n)
	}
}

func TestReadmeWords(t *testing.T) {
	got := readmeWords(`bin/gepcheck admission simulate -f x.yaml --request 'CREATE v1 pods ns=a' < in.yaml > out.html  # a # needs: cluster`)
	want := []string{"bin/gepcheck", "admission", "simulate", "-f", "x.yaml", "--request", "CREATE v1 pods ns=a"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}
