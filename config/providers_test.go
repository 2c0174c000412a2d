package config

// testProviders is the configuration's part of a provider table for the
// tests of this package (which cannot import app, whose table it mirrors):
// Cohere, OpenAI, Gemini and the offline embedder.
var testProviders = ProviderTable{
	{Name: EmbedderCohere, Title: "Cohere", KeyEnv: []string{"COHERE_API_KEY", "CO_API_KEY"}, BaseURLEnv: []string{"COHERE_BASE_URL"}, Chats: true},
	{Name: EmbedderOpenAI, Title: "OpenAI", KeyEnv: []string{"OPENAI_API_KEY"}, BaseURLEnv: []string{"OPENAI_BASE_URL"}, Chats: true},
	{Name: EmbedderGemini, Title: "Gemini", KeyEnv: []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}, BaseURLEnv: []string{"GEMINI_BASE_URL"}},
	{Name: EmbedderLocal, Title: "local"},
}
