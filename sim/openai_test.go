package sim

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/goodput-dev/goodput/tokenizer"
)

// The official OpenAI Go SDK must be able to stream from the simulator as
// from vLLM: completions with vLLM's extra fields, chat, and responses.
func TestOpenAISDKStreams(t *testing.T) {
	_, ts := startServer(t, Options{Profile: fastProfile(t), ServedModelName: "sim-8b", APIKey: "sk-sim"})
	client := openai.NewClient(
		option.WithBaseURL(ts.URL+"/v1"),
		option.WithAPIKey("sk-sim"),
		option.WithHTTPClient(ts.Client()),
		option.WithMaxRetries(0),
	)
	ctx := context.Background()

	t.Run("completions", func(t *testing.T) {
		stream := client.Completions.NewStreaming(ctx, openai.CompletionNewParams{
			Model:         "sim-8b",
			Prompt:        openai.CompletionNewParamsPromptUnion{OfArrayOfTokens: []int64{3000, 3001, 3002, 3003}},
			MaxTokens:     openai.Int(12),
			StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
		}, option.WithJSONSet("ignore_eos", true), option.WithJSONSet("min_tokens", 12))
		var text strings.Builder
		var chunks int
		var finish string
		var usage openai.CompletionUsage
		for stream.Next() {
			c := stream.Current()
			if c.Model != "sim-8b" || c.Object != "text_completion" {
				t.Errorf("chunk model %q object %q", c.Model, c.Object)
			}
			if len(c.Choices) > 0 {
				chunks++
				text.WriteString(c.Choices[0].Text)
				if c.Choices[0].FinishReason != "" {
					finish = string(c.Choices[0].FinishReason)
				}
			}
			if c.Usage.TotalTokens > 0 {
				usage = c.Usage
			}
		}
		if err := stream.Err(); err != nil {
			t.Fatal(err)
		}
		if chunks != 12 || finish != "length" || tokenizer.Count(text.String()) != 12 {
			t.Errorf("%d chunks, finish %q, text %q; want 12 one-token chunks ending by length", chunks, finish, text.String())
		}
		if usage.PromptTokens != 4 || usage.CompletionTokens != 12 || usage.TotalTokens != 16 {
			t.Errorf("usage %+v, want 4 + 12 = 16", usage)
		}
	})

	t.Run("chat", func(t *testing.T) {
		stream := client.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{
			Model:               "sim-8b",
			Messages:            []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("Be brief."), openai.UserMessage("Hello!")},
			MaxCompletionTokens: openai.Int(6),
			StreamOptions:       openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
		}, option.WithJSONSet("ignore_eos", true))
		var acc openai.ChatCompletionAccumulator
		for stream.Next() {
			acc.AddChunk(stream.Current())
		}
		if err := stream.Err(); err != nil {
			t.Fatal(err)
		}
		if len(acc.Choices) != 1 {
			t.Fatalf("%d choices accumulated, want 1", len(acc.Choices))
		}
		msg := acc.Choices[0].Message
		if msg.Role != "assistant" || tokenizer.Count(msg.Content) != 6 || acc.Choices[0].FinishReason != "length" {
			t.Errorf("message role %q content %q finish %q; want an assistant reply of 6 tokens ending by length",
				msg.Role, msg.Content, acc.Choices[0].FinishReason)
		}
		if acc.Usage.CompletionTokens != 6 || acc.Usage.PromptTokens < 1 || !strings.HasPrefix(acc.ID, "chatcmpl-") {
			t.Errorf("usage %+v id %q", acc.Usage, acc.ID)
		}
	})

	t.Run("responses", func(t *testing.T) {
		stream := client.Responses.NewStreaming(ctx, responses.ResponseNewParams{
			Model:           "sim-8b",
			Instructions:    openai.String("Be brief."),
			Input:           responses.ResponseNewParamsInputUnion{OfString: openai.String("Hello!")},
			MaxOutputTokens: openai.Int(6),
		}, option.WithJSONSet("ignore_eos", true))
		var types []string
		var text strings.Builder
		var done responses.Response
		for stream.Next() {
			e := stream.Current()
			types = append(types, e.Type)
			switch e.Type {
			case "response.output_text.delta":
				text.WriteString(e.AsResponseOutputTextDelta().Delta)
			case "response.completed":
				done = e.AsResponseCompleted().Response
			}
		}
		if err := stream.Err(); err != nil {
			t.Fatal(err)
		}
		if want := wantEvents(0, 6); !slices.Equal(types, want) {
			t.Errorf("the SDK read events\n%v\nwant\n%v", types, want)
		}
		if done.OutputText() != text.String() || tokenizer.Count(text.String()) != 6 {
			t.Errorf("completed text %q, deltas %q; want the same 6 tokens", done.OutputText(), text.String())
		}
		if done.Status != responses.ResponseStatusIncomplete || done.IncompleteDetails.Reason != "max_output_tokens" ||
			done.Usage.OutputTokens != 6 || done.Usage.InputTokens < 1 || !strings.HasPrefix(done.ID, "resp_") {
			t.Errorf("completed response: status %q (%q), usage %+v, id %q", done.Status, done.IncompleteDetails.Reason, done.Usage, done.ID)
		}

		whole, err := client.Responses.New(ctx, responses.ResponseNewParams{
			Model:           "sim-8b",
			Input:           responses.ResponseNewParamsInputUnion{OfString: openai.String("Hello!")},
			MaxOutputTokens: openai.Int(4),
		}, option.WithJSONSet("ignore_eos", true))
		if err != nil {
			t.Fatal(err)
		}
		if whole.Status != responses.ResponseStatusIncomplete || whole.Usage.OutputTokens != 4 || tokenizer.Count(whole.OutputText()) != 4 {
			t.Errorf("whole response: status %q, usage %+v, text %q", whole.Status, whole.Usage, whole.OutputText())
		}
	})

	t.Run("errors", func(t *testing.T) {
		_, err := client.Completions.New(ctx, openai.CompletionNewParams{
			Model:     "sim-8b",
			Prompt:    openai.CompletionNewParamsPromptUnion{OfString: openai.String("x")},
			MaxTokens: openai.Int(100000),
		})
		var apiErr *openai.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || !strings.Contains(apiErr.Message, "maximum context length") {
			t.Errorf("over-long request: %v; want a 400 the SDK decodes", err)
		}
	})
}
