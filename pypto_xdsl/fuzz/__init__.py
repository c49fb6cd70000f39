"""Fuzzing and test-case reduction for pypto-xdsl (imports the passes, the backend and the tools).

* `generator`: random well-typed programs (every region kind, dtype, rank, memory space,
  function kind the dialect has);
* `runner`: generated programs through pass pipelines, the printer, the Ascend C backend and
  (for a share) the g++ simulation, checked against the reference interpreter (`make fuzz`);
* `mutate`, `errors`: mutated valid inputs through the tools, which must answer with valid
  output or exactly one located diagnostic (`make fuzz-errors`);
* `reduce`: shrink a failing program; `scale`: deep and large programs for the scale tests;
* `inprocess`: run a tool's `main` in this process and capture what it prints.
"""
