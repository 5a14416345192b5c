# vLLM's output as users save it: one CompletionOutput per line, with
# token_ids and logprobs as a list of per-position dicts {token id: Logprob}
# (Logprob's logprob, rank and decoded_token, from dataclasses.asdict; ids are
# JSON keys, strings), SamplingParams(logprobs=k): the k most likely tokens
# and the chosen one (here one or two a position).  text, cumulative_logprob,
# finish_reason and index are ignored.  Worked by hand:
#   prompt 0, "the capital of China?": the golden (GPU) answers 40 41 ("Bei"
#     "jing"), the target (NPU) 50 51 ("Shang" "hai").  Position 1, step 1:
#     target's 50 at -0.5, golden's 40 at -1.25 in the target run: margin
#     0.75; golden's 40 at -0.25, 50 at -1.75: margin 1.5: real
#   prompt 1: the same ids: same
#   prompt 2: position 2, target's 9 at -0.6875 against 10 at -0.75: 0.0625;
#     golden's 10 at -0.6875 against 9 at -0.71875: 0.03125: a near tie
# A plain number per position (the chosen token's log-prob, what some
# scripts keep) works alongside: prompt 1 of the target has them.
cat > npu.ndjson <<'J'
{"index":0,"text":"Shanghai","token_ids":[13,50,51,2],"cumulative_logprob":-0.8,"logprobs":[{"13":{"logprob":-0.0625,"rank":1,"decoded_token":"\n"},"29871":{"logprob":-3.0,"rank":2,"decoded_token":" "}},{"50":{"logprob":-0.5,"rank":1,"decoded_token":"Shang"},"40":{"logprob":-1.25,"rank":2,"decoded_token":"Bei"}},{"51":{"logprob":-0.125,"rank":1,"decoded_token":"hai"},"52":{"logprob":-2.5,"rank":2,"decoded_token":"x"}},{"2":{"logprob":-0.0078125,"rank":1,"decoded_token":"</s>"},"13":{"logprob":-5.0,"rank":2,"decoded_token":"\n"}}],"finish_reason":"stop"}
{"index":0,"text":"ok","token_ids":[3,4],"cumulative_logprob":-0.2,"logprobs":[-0.125,-0.0625],"finish_reason":"length"}
{"index":0,"text":"abc","token_ids":[7,8,9],"cumulative_logprob":-1.0,"logprobs":[{"7":{"logprob":-0.25,"rank":1,"decoded_token":"a"}},{"8":{"logprob":-0.125,"rank":1,"decoded_token":"b"}},{"9":{"logprob":-0.6875,"rank":1,"decoded_token":"c"},"10":{"logprob":-0.75,"rank":2,"decoded_token":"d"}}],"finish_reason":"length"}
J
cat > gpu.ndjson <<'J'
{"index":0,"text":"Beijing","token_ids":[13,40,41,2],"cumulative_logprob":-0.5,"logprobs":[{"13":{"logprob":-0.0625,"rank":1,"decoded_token":"\n"},"29871":{"logprob":-3.0,"rank":2,"decoded_token":" "}},{"40":{"logprob":-0.25,"rank":1,"decoded_token":"Bei"},"50":{"logprob":-1.75,"rank":2,"decoded_token":"Shang"}},{"41":{"logprob":-0.0625,"rank":1,"decoded_token":"jing"},"42":{"logprob":-3.0,"rank":2,"decoded_token":"y"}},{"2":{"logprob":-0.0078125,"rank":1,"decoded_token":"</s>"},"13":{"logprob":-5.0,"rank":2,"decoded_token":"\n"}}],"finish_reason":"stop"}
{"index":0,"text":"ok","token_ids":[3,4],"cumulative_logprob":-0.2,"logprobs":[{"3":{"logprob":-0.125,"rank":1,"decoded_token":"o"}},{"4":{"logprob":-0.0625,"rank":1,"decoded_token":"k"}}],"finish_reason":"length"}
{"index":0,"text":"abd","token_ids":[7,8,10],"cumulative_logprob":-1.0,"logprobs":[{"7":{"logprob":-0.25,"rank":1,"decoded_token":"a"}},{"8":{"logprob":-0.125,"rank":1,"decoded_token":"b"}},{"10":{"logprob":-0.6875,"rank":1,"decoded_token":"d"},"9":{"logprob":-0.71875,"rank":2,"decoded_token":"c"}}],"finish_reason":"length"}
J
probe-tokens npu.ndjson gpu.ndjson; echo "status $?"
probe-tokens --format text npu.ndjson gpu.ndjson; echo "status $?"
# the target's logprobs null (not requested): prompt 0 is still real, on the
# golden's margin alone (1.5)
jq -c '.logprobs = null' npu.ndjson > npu-nolp.ndjson
probe-tokens npu-nolp.ndjson gpu.ndjson | jq -c 'select(.prompt == 0) | {tie, t: .t.logprob, g: .g.margin}'
