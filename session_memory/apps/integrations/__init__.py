"""Session memory inside the agents people build on a framework.

One module per framework, each importing its framework (install the extra of the same name):
``pydantic_ai`` (``SessionMemoryCapability``), ``openai_agents``
(``SessionMemoryInputFilter``) and ``langchain`` (``SessionMemoryMiddleware``); ``window``
is what they share. This package imports none of them.
"""
