"""The kinds of media block, named in one place (a small module: the renderers and counters
that ask load nothing else)."""

# media blocks as readers leave them (langchain's standard kinds, OpenAI's parts, Anthropic's
# documents, the Responses API's and Assistants' parts), by what they hold: the one list the
# renderers, stats, ``select --has`` and the loss checks go by
MEDIA_KINDS = {
    "image": "image",
    "image_url": "image",
    "input_image": "image",
    "image_file": "image",
    "audio": "audio",
    "input_audio": "audio",
    "video": "video",
    "file": "file",
    "input_file": "file",
    "document": "file",
    "text-plain": "file",
}
