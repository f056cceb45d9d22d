"""The chat template stored in the model (`tokenizer.chat_template`): ChatML turns, with tools in the Hermes style
(tool signatures listed in the system turn inside <tools></tools>, calls written as JSON inside
<tool_call></tool_call>, results sent back in a user turn inside <tool_response></tool_response>). llama-server
(started with --jinja) renders it for every /v1/chat/completions request and recognises the <tool_call> form."""

CHAT_TEMPLATE = """\
{%- if tools %}
  {{- '<|im_start|>system\\n' }}
  {%- if messages[0].role == 'system' %}
    {{- messages[0].content + '\\n\\n' }}
  {%- endif %}
  {{- '# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\n' }}
  {{- 'You are provided with function signatures within <tools></tools> XML tags:\\n<tools>' }}
  {%- for tool in tools %}
    {{- '\\n' }}
    {{- tool | tojson }}
  {%- endfor %}
  {{- '\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within ' }}
  {{- '<tool_call></tool_call> XML tags:\\n<tool_call>\\n{"name": <function-name>, "arguments": <args-json-object>}' }}
  {{- '\\n</tool_call><|im_end|>\\n' }}
{%- elif messages[0].role == 'system' %}
  {{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}
{%- endif %}
{%- for message in messages %}
  {%- if message.role == 'system' and loop.first %}
  {%- elif message.role == 'user' or message.role == 'system' or (message.role == 'assistant' and not message.tool_calls) %}
    {{- '<|im_start|>' + message.role + '\\n' + (message.content or '') + '<|im_end|>\\n' }}
  {%- elif message.role == 'assistant' %}
    {{- '<|im_start|>assistant' }}
    {%- if message.content %}
      {{- '\\n' + message.content }}
    {%- endif %}
    {%- for call in message.tool_calls %}
      {%- if call.function is defined %}
        {%- set call = call.function %}
      {%- endif %}
      {{- '\\n<tool_call>\\n{"name": "' + call.name + '", "arguments": ' }}
      {%- if call.arguments is string %}
        {{- call.arguments }}
      {%- else %}
        {{- call.arguments | tojson }}
      {%- endif %}
      {{- '}\\n</tool_call>' }}
    {%- endfor %}
    {{- '<|im_end|>\\n' }}
  {%- elif message.role == 'tool' %}
    {%- if loop.first or messages[loop.index0 - 1].role != 'tool' %}
      {{- '<|im_start|>user' }}
    {%- endif %}
    {{- '\\n<tool_response>\\n' + (message.content or '') + '\\n</tool_response>' }}
    {%- if loop.last or messages[loop.index0 + 1].role != 'tool' %}
      {{- '<|im_end|>\\n' }}
    {%- endif %}
  {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
  {{- '<|im_start|>assistant\\n' }}
{%- endif %}
"""
