package app

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"ragscope/config"
	"ragscope/retrieval"
	"ragscope/retrieval/provider/cohere"
	"ragscope/retrieval/provider/gemini"
	"ragscope/retrieval/provider/openai"
)

// Providers returns the default provider table: Cohere, OpenAI-compatible,
// Gemini and the offline embedder of local indexes. Each call returns a
// new table, which a caller may extend.
func Providers() Table {
	return Table{cohereRow(), openAIRow(), geminiRow(), localRow()}
}

// row is a provider's row with its settings: the environment variables
// of its key and of its base URL.
func row(name, title string, keyEnv, baseURLEnv []string) Provider {
	return Provider{ProviderRow: config.ProviderRow{Name: name, Title: title, KeyEnv: keyEnv, BaseURLEnv: baseURLEnv}}
}

// localRow is the offline embedder of local indexes: no key, no server,
// and it reads whole chunks.
func localRow() Provider {
	p := row(config.EmbedderLocal, "local", nil, nil)
	p.Models = []Model{{Name: "ragscope-local-*"}}
	p.NoQdrant = "embeds with the offline model of a local index and cannot search a Qdrant collection"
	return p
}

// cohereRow is Cohere: embeddings, rerank and chat.
func cohereRow() Provider {
	p := row(config.EmbedderCohere, "Cohere", []string{"COHERE_API_KEY", "CO_API_KEY"}, []string{"COHERE_BASE_URL"})
	p.BaseURLHelp = "Cohere API base URL, for proxies (default https://api.cohere.com)"
	// The v3 embed models read 512 tokens and cut the rest (truncate=END
	// by default).
	p.Models = []Model{
		{Name: "embed-english-v3.0", InputTokens: 512, Dim: 1024},
		{Name: "embed-multilingual-v3.0", InputTokens: 512, Dim: 1024},
		{Name: "embed-english-light-v3.0", InputTokens: 512, Dim: 384},
		{Name: "embed-multilingual-light-v3.0", InputTokens: 512, Dim: 384},
	}
	p.OwnsEmbedModel = func(m string) bool { return strings.HasPrefix(bareModel(m), "embed-") }
	p.OwnsChatModel = func(m string) bool { return strings.HasPrefix(bareModel(m), "command") }
	p.DefaultEmbedModel, p.DefaultChatModel, p.DefaultRerankModel = cohere.DefaultModel, cohere.DefaultChatModel, cohere.DefaultRerankModel
	p.MaxBatch, p.IndexCalls, p.DocInputType = cohere.MaxBatch, 4, "search_document"
	p.NewEmbedder = func(_ context.Context, o EmbedOptions) (QueryEmbedder, error) {
		model := cmp.Or(o.Model, p.DefaultEmbedModel) // the model o.Known describes
		if o.Dimensions > 0 && o.Dimensions != o.Known.Dim {
			return nil, fmt.Errorf("%w: --dimensions %d: Cohere's %s cannot be asked for another vector size; use --embedder openai with text-embedding-3-small/-large, or drop --dimensions", retrieval.ErrConfig, o.Dimensions, model)
		}
		return cohere.New(cohere.Options{APIKey: o.Config.Key(p.Name).Reveal(), BaseURL: o.Config.BaseURL(p.Name), Model: model, ModelDim: o.Known.Dim, Timeout: o.Timeout,
			Documents: o.Documents, MaxAttempts: o.MaxAttempts, CacheSize: o.cacheSize()})
	}
	p.NewReranker = func(o ModelOptions) (retrieval.Reranker, error) { return cohere.NewReranker(o.client(p)) }
	p.NewChat = func(o ModelOptions) (retrieval.Generator, error) { return cohere.NewChat(o.client(p)) }
	return p
}

// openAIRow is OpenAI or any OpenAI-compatible server: embeddings and
// chat; a local server needs no key.
func openAIRow() Provider {
	p := row(config.EmbedderOpenAI, "OpenAI", []string{"OPENAI_API_KEY"}, []string{"OPENAI_BASE_URL"})
	p.KeyHelp, p.BaseURLHelp = "OpenAI-compatible API key (never printed)", "OpenAI-compatible API base URL"
	// 8191 tokens (cl100k_base) for the third-generation models and ada-002.
	p.Models = []Model{
		{Name: "text-embedding-3-small", InputTokens: 8191, Dim: 1536, Shortens: true},
		{Name: "text-embedding-3-large", InputTokens: 8191, Dim: 3072, Shortens: true},
		{Name: "text-embedding-3-*", InputTokens: 8191},
		{Name: "text-embedding-ada-002", InputTokens: 8191, Dim: 1536},
	}
	p.KeyOptional = func(c config.Config) bool {
		return c.BaseURL(p.Name) != "" && !openAIOwnAPI(c.BaseURL(p.Name))
	}
	p.LocalServer = "a local OpenAI-compatible server such as Ollama (http://localhost:11434/v1, with --chat-model llama3.2)"
	p.KeyNote = "; a local OpenAI-compatible server needs only OPENAI_BASE_URL (e.g. http://localhost:11434/v1)"
	p.BaseURLPicks = true
	p.OwnsEmbedModel = func(m string) bool {
		m = bareModel(m)
		return strings.HasPrefix(m, "text-embedding-3-") || m == "text-embedding-ada-002"
	}
	p.OwnsChatModel = func(m string) bool { return strings.HasPrefix(bareModel(m), "gpt-") }
	p.DefaultEmbedModel, p.DefaultChatModel, p.MaxBatch, p.IndexCalls = openai.DefaultModel, openai.DefaultChatModel, openai.MaxBatch, 4
	p.MaxBatchTokens = 300_000
	p.NewEmbedder = func(_ context.Context, o EmbedOptions) (QueryEmbedder, error) { return openai.New(o.embedx(p)) }
	p.NewChat = func(o ModelOptions) (retrieval.Generator, error) { return openai.NewChat(o.client(p)) }
	return p
}

// geminiRow is Google's Gemini API: embeddings.
func geminiRow() Provider {
	p := row(config.EmbedderGemini, "Gemini", []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}, []string{"GEMINI_BASE_URL"})
	p.Models = []Model{
		{Name: "gemini-embedding-001", InputTokens: 2048, Dim: 3072, Shortens: true},
		{Name: "text-embedding-004", Dim: 768, Shortens: true},
	}
	p.BaseURLPicks = true
	p.OwnsEmbedModel = func(m string) bool {
		m = bareModel(m)
		return strings.HasPrefix(m, "gemini-embedding-") || m == "text-embedding-004"
	}
	p.DefaultEmbedModel, p.MaxBatch, p.IndexCalls, p.DocInputType = gemini.DefaultModel, gemini.MaxBatch, 4, "RETRIEVAL_DOCUMENT"
	p.NewEmbedder = func(ctx context.Context, o EmbedOptions) (QueryEmbedder, error) { return gemini.New(ctx, o.embedx(p)) }
	return p
}
