package config

// Chat providers (--chat-provider, RAGSCOPE_CHAT_PROVIDER, [chat]
// provider): auto (app.Table.ResolvedChatProvider picks), or a provider
// of the table that answers (ProviderRow.Chats).
const (
	ChatAuto   = EmbedderAuto
	ChatCohere = EmbedderCohere
	ChatOpenAI = EmbedderOpenAI
)
