"""Enforcement: the rules feedback memories carry, and the gate every tool call passes.

``rules`` parses and checks a memory's ``enforce:`` field; ``shell_words``
reads a shell command into the simple commands a rule sees (``shell_reading``:
a word's quotes and expansions; ``shell_forms``: what one command runs: its
command behind wrappers, the shell code it hands on), and ``rule_subjects``
into what a rule matches; ``rule_gate`` decides a call from the rules in
force; ``enforced`` collects those rules from a project's memory folders,
``rule_cache`` keeps them between calls, ``team_rules`` holds a teammate's
new rules until a person approves them, and ``rule_firings`` logs which
rules fired.
"""
