package pretrained

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/goodput-dev/goodput/internal/hfcache"
	"github.com/goodput-dev/goodput/tokenizer/gguf"
)

// maxJSONBytes bounds a tokenizer.json; the largest real ones are about
// 30 MB.
const maxJSONBytes = 512 << 20

// Open loads the tokenizer at path, which may be:
//
//   - a Hugging Face tokenizer.json file (tokenizer_config.json beside it
//     is read too, for add_bos_token and the BOS/EOS tokens);
//   - a directory holding tokenizer.json, or else exactly one .gguf file;
//   - a GGUF model file, whose tokenizer.ggml.* metadata is the vocabulary
//     (only the metadata is read, however large the file);
//   - a Hugging Face model id such as "meta-llama/Llama-3.1-8B-Instruct",
//     found in the local Hugging Face cache ($HF_HUB_CACHE, $HF_HOME/hub or
//     ~/.cache/huggingface/hub; the revision refs/main names, else the one
//     snapshot with a tokenizer.json). Nothing is downloaded: an id that is
//     not cached is an error naming the file to download and where it goes.
//
// Errors name the path.
func Open(path string) (*Tokenizer, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) && looksLikeModelID(path) {
		if cached, ok := findInHubCache(path); ok {
			return openFile(cached, path)
		}
		return nil, fmt.Errorf("tokenizer %q: not a local file, and not in the local Hugging Face cache; nothing is downloaded: "+
			"get https://huggingface.co/%s/resolve/main/tokenizer.json with tokenizer_config.json beside it "+
			"(e.g. `huggingface-cli download %s tokenizer.json tokenizer_config.json --local-dir DIR`; gated models need `huggingface-cli login` first) "+
			"and pass DIR", path, path, path)
	}
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	if st.IsDir() {
		return openDir(path)
	}
	return openFile(path, "")
}

// ReadJSON loads a tokenizer from the content of a tokenizer.json; name is
// what Name returns. Without tokenizer_config.json, BOS and EOS follow the
// file's post-processor alone.
func ReadJSON(r io.Reader, name string) (*Tokenizer, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxJSONBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxJSONBytes {
		return nil, fmt.Errorf("tokenizer.json is larger than %d bytes", maxJSONBytes)
	}
	m, err := fromHF(data, nil, name)
	if err != nil {
		return nil, err
	}
	return newTokenizer(m), nil
}

// ReadGGUF loads a tokenizer from a GGUF file's content, read up to the end
// of its metadata; name is used when the file has no general.name.
func ReadGGUF(r io.Reader, name string) (*Tokenizer, error) {
	f, err := gguf.Read(r)
	if err != nil {
		return nil, err
	}
	m, err := fromGGUF(f, name)
	if err != nil {
		return nil, err
	}
	return newTokenizer(m), nil
}

// openFile loads a tokenizer.json or GGUF file; id, when not empty, is the
// model id the file was found for, which names the tokenizer.
func openFile(path, id string) (*Tokenizer, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	var head [4]byte
	_, err = io.ReadFull(fh, head[:])
	fh.Close()
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("tokenizer %s: %w", path, err)
	}
	base := filepath.Base(path)
	if string(head[:]) == "GGUF" {
		f, err := gguf.Open(path)
		if err != nil {
			return nil, fmt.Errorf("tokenizer %w", err)
		}
		m, err := fromGGUF(f, strings.TrimSuffix(base, filepath.Ext(base)))
		if err != nil {
			return nil, fmt.Errorf("tokenizer %s: %w", path, err)
		}
		return newTokenizer(m), nil
	}
	data, err := readLimited(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	if t := bytes.TrimLeft(data, " \t\r\n\ufeff"); len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("tokenizer %s: neither a GGUF file nor a tokenizer.json", path)
	}
	cfg, err := readConfig(filepath.Join(filepath.Dir(path), "tokenizer_config.json"))
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	name := id
	if name == "" {
		name = strings.TrimSuffix(base, ".json")
		if base == "tokenizer.json" {
			if abs, err := filepath.Abs(path); err == nil {
				name = filepath.Base(filepath.Dir(abs))
			}
		}
	}
	m, err := fromHF(data, cfg, name)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", path, err)
	}
	return newTokenizer(m), nil
}

func readLimited(path string) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, maxJSONBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > maxJSONBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes, not a tokenizer.json", path, maxJSONBytes)
	}
	return data, nil
}

// readConfig reads tokenizer_config.json; a missing file is no error.
func readConfig(path string) (*hfConfig, error) {
	data, err := readLimited(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var cfg hfConfig
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &cfg, nil
}

func openDir(dir string) (*Tokenizer, error) {
	tj := filepath.Join(dir, "tokenizer.json")
	if _, err := os.Stat(tj); err == nil {
		return openFile(tj, "")
	}
	ggufs, _ := filepath.Glob(filepath.Join(dir, "*.gguf"))
	if len(ggufs) == 1 {
		return openFile(ggufs[0], "")
	}
	if len(ggufs) > 1 {
		return nil, fmt.Errorf("tokenizer %s: no tokenizer.json, and %d .gguf files: name one", dir, len(ggufs))
	}
	hint := ""
	if _, err := os.Stat(filepath.Join(dir, "tokenizer.model")); err == nil {
		hint = " (tokenizer.model, a SentencePiece model, is not read)"
	}
	return nil, fmt.Errorf("tokenizer %s: the directory has no tokenizer.json%s; download the model's tokenizer.json from its Hugging Face page "+
		"(https://huggingface.co/ORG/MODEL/resolve/main/tokenizer.json) into it, or pass a GGUF model file", dir, hint)
}

var modelIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// looksLikeModelID reports whether s is shaped like "org/name" and not like
// a relative file path.
func looksLikeModelID(s string) bool {
	if !modelIDPattern.MatchString(s) || strings.Contains(s, "..") {
		return false
	}
	ext := strings.ToLower(filepath.Ext(s))
	return ext != ".json" && ext != ".gguf"
}

// findInHubCache finds tokenizer.json of a model id in the local Hugging
// Face cache: at the revision refs/main names, or else in the one snapshot
// that has it.
func findInHubCache(id string) (string, bool) {
	repo := hfcache.Repo("models", id)
	for _, root := range hfcache.Roots() {
		snapshots := filepath.Join(root, repo, "snapshots")
		if ref, err := os.ReadFile(filepath.Join(root, repo, "refs", "main")); err == nil {
			rev := strings.TrimSpace(string(ref))
			if rev != "" && !strings.ContainsAny(rev, `/\`) && rev != "." && rev != ".." {
				p := filepath.Join(snapshots, rev, "tokenizer.json")
				if _, err := os.Stat(p); err == nil {
					return p, true
				}
			}
		}
		found, _ := filepath.Glob(filepath.Join(snapshots, "*", "tokenizer.json"))
		if len(found) == 1 {
			return found[0], true
		}
	}
	return "", false
}
