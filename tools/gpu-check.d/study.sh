# FP8 study step of tools/gpu-check (sourced by it): `infer8 study --device cuda` on a synthetic
# inception_resnet_v2 with generated images, so the speed part (interleaved rounds at batch 1
# and 32, per-layer-type profile) runs on the GPU. Until the CUDA backend has FP8 kernels the
# FP8 variants must be reported as "not measured" (cannot run on the device) while fp16 is timed;
# the step checks that and copies the report into $OUT/study/.
STEPS+=(study_cuda)

study_cuda() {
  gpu_env >/dev/null
  local snap="$WORK/inception_resnet_v2"
  [ -f "$snap/model.safetensors" ] || "$INFER8" synth --arch inception_resnet_v2 --seed 0 -o "$snap" 2>/dev/null || return 1
  "$INFER8" gen-images --count 40 --seed 300 --size 400x300 -o "$WORK/study-images" >/dev/null || return 1
  INFER8_CUDA_CUDNN_BUDGET=${INFER8_CUDA_CUDNN_BUDGET:-15} "$INFER8" study "$snap" --images "$WORK/study-images" \
    --take 40 --every 1 --calib 16 --stress 8 --device cuda --rounds 5 --iters 100 -o "$WORK/study" \
    >"$OUT/study_cuda.log" 2>&1
  local rc=$?
  tail -n 8 "$OUT/study_cuda.log"
  [ $rc -eq 0 ] || return $rc
  mkdir -p "$OUT/study" && cp "$WORK/study/README.md" "$WORK/study/study.json" "$WORK"/study/*.svg "$OUT/study/"
  /usr/bin/python3 - "$WORK/study/study.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["speed"]["measured"], "speed not measured on CUDA"
v = {x["name"]: x for x in d["variants"]}
assert v["fp16"]["speed"]["measured"] and v["fp16"]["speed"]["batches"][0]["median_ms"] > 0, "fp16 not timed"
for x in d["variants"][1:]:
    if x["applicable"] and not x["speed"]["measured"]:
        assert "cannot run" in x["speed"]["note"], x["speed"]["note"]
print("study on CUDA: decision", d["decision"]["decision"], "-", d["decision"]["reason"][:300])
PY
}
