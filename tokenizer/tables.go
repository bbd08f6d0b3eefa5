package tokenizer

// The tables below are the whole definition of the vocabulary: vocabulary.go
// derives every piece from them in a fixed order. Changing any of them
// changes token ids and counts, so a change is a format change: records
// measured before and after it are no longer comparable.

// commonWords are frequent English words, most frequent first, followed by
// words of the LLM-serving domain. Each becomes a lowercase word piece; the
// first capitalWords of them also get a capitalised piece. Words draws from
// them with a Zipf-like weight, which is what makes generated text read like
// prose rather than noise.
var commonWords = [...]string{
	"the", "of", "and", "to", "a", "in", "is", "it", "you", "that",
	"he", "was", "for", "on", "are", "with", "as", "his", "they", "be",
	"at", "one", "have", "this", "from", "or", "had", "by", "not", "word",
	"but", "what", "some", "we", "can", "out", "other", "were", "all", "there",
	"when", "up", "use", "your", "how", "said", "an", "each", "she", "which",
	"do", "their", "time", "if", "will", "way", "about", "many", "then", "them",
	"write", "would", "like", "so", "these", "her", "long", "make", "thing", "see",
	"him", "two", "has", "look", "more", "day", "could", "go", "come", "did",
	"number", "sound", "no", "most", "people", "my", "over", "know", "water", "than",
	"call", "first", "who", "may", "down", "side", "been", "now", "find", "any",
	"new", "work", "part", "take", "get", "place", "made", "live", "where", "after",
	"back", "little", "only", "round", "man", "year", "came", "show", "every", "good",
	"me", "give", "our", "under", "name", "very", "through", "just", "form", "sentence",
	"great", "think", "say", "help", "low", "line", "differ", "turn", "cause", "much",
	"mean", "before", "move", "right", "old", "too", "same", "tell", "does", "set",
	"three", "want", "air", "well", "also", "play", "small", "end", "put", "home",
	"read", "hand", "large", "spell", "add", "even", "land", "here", "must", "big",
	"high", "such", "follow", "act", "why", "ask", "men", "change", "went", "light",
	"kind", "off", "need", "house", "picture", "try", "us", "again", "point", "world",
	"near", "build", "self", "earth", "head", "stand", "own", "page", "should", "country",
	"found", "answer", "school", "grow", "study", "still", "learn", "plant", "cover", "food",
	"four", "between", "state", "keep", "eye", "never", "last", "let", "thought", "city",
	"tree", "cross", "hard", "start", "might", "story", "far", "draw", "left", "late",
	"run", "while", "press", "close", "night", "real", "life", "few", "north", "open",
	"seem", "together", "next", "white", "begin", "got", "walk", "example", "ease", "paper",
	"group", "always", "those", "both", "mark", "often", "letter", "until", "mile", "second",
	"enough", "idea", "car", "feet", "care", "surface", "list", "though", "question", "fast",
	"during", "short", "better", "best", "however", "across", "hours", "black", "products", "happened",
	"whole", "measure", "remember", "early", "waves", "reached", "listen", "wind", "rock", "space",
	"covered", "several", "hold", "himself", "toward", "five", "step", "morning", "passed", "true",
	"model", "models", "token", "tokens", "server", "servers", "request", "requests", "response", "latency",
	"throughput", "goodput", "cache", "memory", "batch", "queue", "prompt", "prompts", "output", "input",
	"load", "rate", "slow", "seconds", "percentile", "median", "tail", "stream", "streaming", "decode",
	"prefill", "engine", "kernel", "scheduler", "block", "blocks", "replica", "replicas", "capacity", "traffic",
	"user", "users", "service", "system", "systems", "data", "test", "tests", "result", "results",
	"value", "values", "error", "errors", "limit", "budget", "target", "metric", "metrics", "report",
	"cost", "price", "fleet", "node", "nodes", "cluster", "network", "client", "clients", "message",
}

// capitalWords is how many of the leading commonWords also get a
// capitalised word piece, so that generated sentences can start with one.
const capitalWords = 120

// Syllable parts. A syllable is onset + nucleus + coda; words are made of one
// or two syllables and continuation pieces of syllable fragments.
var (
	onsets = [...]string{
		"", "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s",
		"t", "v", "w", "y", "z", "bl", "br", "ch", "cl", "cr", "dr", "fl", "fr",
		"gl", "gr", "pl", "pr", "sc", "sh", "sk", "sl", "sm", "sn", "sp", "st",
		"sw", "th", "tr", "wh",
	}
	nuclei = [...]string{
		"a", "e", "i", "o", "u", "ai", "au", "ea", "ee", "ie", "oa", "oo", "ou", "y",
	}
	codas = [...]string{
		"", "b", "ck", "d", "ft", "g", "k", "l", "ld", "ll", "lt", "m", "mp", "n",
		"nd", "ng", "nk", "nt", "p", "r", "rd", "rk", "rm", "rn", "rt", "s", "sh",
		"sk", "sp", "st", "t", "th",
	}
)

// suffixes are the most useful continuation pieces: they let an unknown word
// such as " serving" cost two tokens (" serv" + "ing") instead of one per
// letter.
var suffixes = [...]string{
	"ing", "ed", "es", "er", "ers", "est", "ly", "tion", "tions", "sion", "ment",
	"ments", "ness", "able", "ible", "al", "ally", "ful", "less", "ity", "ive",
	"ous", "ance", "ence", "ant", "ent", "ism", "ist", "ize", "ise", "ized",
	"ated", "ation", "ations", "ical", "ic", "ics", "ory", "ary", "ure", "age",
	"ship", "hood", "ward", "en", "ish", "ies", "ied", "ier", "iest", "ting",
	"ning", "ring", "ling", "ding", "ping", "ming", "ging", "ted", "led", "red",
}
