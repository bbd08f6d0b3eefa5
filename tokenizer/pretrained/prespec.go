package pretrained

import "fmt"

// preSpec is how a GGUF file's pre-tokenizer type (tokenizer.ggml.pre)
// splits text, and what else the type implies in llama.cpp.
type preSpec struct {
	steps        []preStep
	ignoreMerges bool // a word that is a token is that token
	addBOS       bool // BOS by default, unless the file says otherwise
}

// Split patterns that llama.cpp lists for its pre-tokenizer types, from
// the models' tokenizer.json files. Patterns with a hand-written scanner
// (gpt2Pattern, llama3Pattern, qwen2Pattern) are in splitters.go. Non-ASCII
// characters are written as \x{…}: some (U+1F7D, U+2126 OHM SIGN, U+212A
// KELVIN SIGN…) have canonical equivalents that text tools silently
// substitute, which would change the classes.
const (
	deepseekLLMLetters = `\s?[A-Za-z\x{B5}\x{C0}-\x{D6}\x{D8}-\x{F6}\x{F8}-\x{1BA}\x{1BC}-\x{1BF}\x{1C4}-\x{293}\x{295}-\x{2AF}\x{370}-\x{373}\x{376}\x{377}\x{37B}-\x{37D}\x{37F}\x{386}\x{388}-\x{38A}\x{38C}\x{38E}-\x{3A1}\x{3A3}-\x{3F5}\x{3F7}-\x{481}\x{48A}-\x{52F}\x{531}-\x{556}\x{10A0}-\x{10C5}\x{13A0}-\x{13F5}\x{13F8}-\x{13FD}\x{1C90}-\x{1CBA}\x{1CBD}-\x{1CBF}\x{1D00}-\x{1D2B}\x{1D6B}-\x{1D77}\x{1D79}-\x{1D9A}\x{1E00}-\x{1F15}\x{1F18}-\x{1F1D}\x{1F20}-\x{1F45}\x{1F48}-\x{1F4D}\x{1F50}-\x{1F57}\x{1F59}\x{1F5B}\x{1F5D}\x{1F5F}-\x{1F7D}\x{1F80}-\x{1FB4}\x{1FB6}-\x{1FBC}\x{1FBE}\x{1FC2}-\x{1FC4}\x{1FC6}-\x{1FCC}\x{1FD0}-\x{1FD3}\x{1FD6}-\x{1FDB}\x{1FE0}-\x{1FEC}\x{1FF2}-\x{1FF4}\x{1FF6}-\x{1FFC}\x{2102}\x{2107}\x{210A}-\x{2113}\x{2115}\x{2119}-\x{211D}\x{2124}\x{2126}\x{2128}\x{212A}-\x{212D}\x{212F}-\x{2134}\x{2139}\x{213C}-\x{213F}\x{2145}-\x{2149}\x{214E}\x{2183}\x{2184}\x{2C00}-\x{2C7B}\x{2C7E}-\x{2CE4}\x{2CEB}-\x{2CEE}\x{2CF2}\x{2CF3}\x{A640}-\x{A66D}\x{A680}-\x{A69B}\x{A722}-\x{A76F}\x{A771}-\x{A787}\x{A78B}-\x{A78E}\x{AB70}-\x{ABBF}\x{FB00}-\x{FB06}\x{FB13}-\x{FB17}\x{FF21}-\x{FF3A}\x{FF41}-\x{FF5A}\x{10400}-\x{1044F}\x{104B0}-\x{104D3}\x{104D8}-\x{104FB}\x{10C80}-\x{10CB2}\x{10CC0}-\x{10CF2}\x{118A0}-\x{118DF}\x{1E900}-\x{1E943}]+`
	deepseekLLMPunct   = `\s?[!-/:-~\x{FF01}-\x{FF0F}\x{FF1A}-\x{FF5E}\x{2018}-\x{201F}\x{3000}-\x{3002}]+`
	deepseekCJK        = `[\x{4E00}-\x{9FA5}\x{800}-\x{4E00}\x{AC00}-\x{D7FF}]+`
	deepseekV3Main     = `[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_` + "`" + `{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	gpt4oPattern       = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	tekkenPattern      = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	qwen35Pattern      = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	seedCoderPattern   = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1}| ?[^\s\p{L}\p{N}\r\n]+|\s*[\r\n]+|\s+(?!\S)|\s+`
)

// preType is one row of the table of pre-tokenizer types.
type preType struct {
	patterns     []string
	ignoreMerges bool
	addBOS       bool
}

var preTypes = map[string]preType{}

func init() {
	add := func(t preType, names ...string) {
		for _, n := range names {
			preTypes[n] = t
		}
	}
	add(preType{patterns: []string{`[\p{P}\$\+<=>\^~\|]+`, gpt2Pattern, `\p{N}+`, `[0-9][0-9][0-9]`}}, "default")
	add(preType{patterns: []string{gpt2Pattern}},
		"gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0",
		"mellum", "modern-bert", "jina-v1-en", "jina-v2-code", "roberta-bpe", "exaone4", "mpt",
		"olmo", "jais", "trillion", "granite-docling")
	add(preType{patterns: []string{llama3Pattern}, ignoreMerges: true, addBOS: true},
		"llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2", "jina-v5-nano")
	add(preType{patterns: []string{llama3Pattern}}, "dbrx", "smaug-bpe", "chatglm-bpe", "glm4")
	add(preType{patterns: []string{qwen2Pattern}},
		"qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "stablelm2", "megrez", "hunyuan", "solar-open", "grok-2")
	add(preType{patterns: []string{qwen35Pattern}}, "qwen35")
	add(preType{patterns: []string{"[\r\n]", deepseekLLMLetters, deepseekLLMPunct, `\s+$`, deepseekCJK, `\p{N}+`}}, "deepseek-llm")
	add(preType{patterns: []string{"[\r\n]", `\s?\p{L}+`, `\s?\p{P}+`, deepseekCJK, `\p{N}`}}, "deepseek-coder")
	add(preType{patterns: []string{`\p{N}{1,3}`, `[\x{4E00}-\x{9FA5}\x{3040}-\x{309F}\x{30A0}-\x{30FF}]+`, deepseekV3Main}}, "deepseek-v3", "hunyuan-dense", "joyai-llm", "hy_v4")
	add(preType{patterns: []string{`[\p{P}\$\+<=>\^~\|]+`, gpt2Pattern, `[0-9][0-9][0-9]`}}, "falcon")
	add(preType{patterns: []string{`\p{N}`, gpt2Pattern}},
		"starcoder", "refact", "command-r", "smollm", "codeshell", "exaone", "minerva-7b", "mellum2")
	add(preType{patterns: []string{` ?[^(\s|.,!?\x{2026}\x{3002}\x{FF0C}\x{3001}\x{964}\x{6D4}\x{60C})]+`}}, "poro-chat", "bloom", "gpt3-finnish")
	add(preType{patterns: []string{gpt4oPattern}}, "gpt-4o", "llama4", "kanana2", "talkie", "minimax-m2")
	add(preType{patterns: []string{tekkenPattern}, ignoreMerges: true, addBOS: true}, "tekken")
	add(preType{patterns: []string{seedCoderPattern}}, "seed-coder")
}

// ggufPreSpec returns the pre-tokenization of a GGUF pre-tokenizer type.
// A file without one gets llama.cpp's "default", as llama.cpp does.
func ggufPreSpec(name string) (*preSpec, error) {
	if name == "" {
		name = "default"
	}
	t, ok := preTypes[name]
	if !ok {
		return nil, fmt.Errorf("tokenizer.ggml.pre %q is not a supported pre-tokenizer type", name)
	}
	ps := &preSpec{ignoreMerges: t.ignoreMerges, addBOS: t.addBOS}
	for _, p := range t.patterns {
		step, err := patternStep(p)
		if err != nil {
			return nil, err
		}
		ps.steps = append(ps.steps, step)
	}
	return ps, nil
}

// patternStep is an isolating split on a pattern: a hand-written scanner
// where there is one, else the compiled pattern.
func patternStep(p string) (preStep, error) {
	if next, ok := handSplitters[p]; ok {
		return scanSplit{next}, nil
	}
	c, err := compilePattern(p)
	if err != nil {
		return nil, err
	}
	return regexSplitter(c, isolated, false), nil
}
