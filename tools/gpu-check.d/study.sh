# FP8 study step of tools/gpu-check (sourced by it): `infer8 study --device cuda` on a synthetic
# inception_resnet_v2 with generated images, so the speed part (interleaved rounds at batch 1
# and 32, per-layer-type profile) runs on the GPU; every applicable variant (fp16 and the FP8
# ones, on the FP8 kernels of cuda_fp8.cu) must be timed. Copies the report into $OUT/study/.
STEPS+=(study_cuda)

study_cuda() {
  gpu_env >/dev/null
  local snap="$WORK/inception_resnet_v2"
  snapshot inception_resnet_v2 >/dev/null || return 1
  "$INFER8" gen-images --count 40 --seed 300 --size 400x300 -o "$WORK/study-images" >/dev/null || return 1
  INFER8_CUDA_CUDNN_BUDGET=${INFER8_CUDA_CUDNN_BUDGET:-15} "$INFER8" study "$snap" --images "$WORK/study-images" \
    --take 40 --every 1 --calib 16 --stress 8 --device cuda --rounds 5 --iters 100 -o "$WORK/study" \
    >"$OUT/study_cuda.log" 2>&1
  local rc=$?
  tail -n 8 "$OUT/study_cuda.log"
  [ $rc -eq 0 ] || return $rc
  mkdir -p "$OUT/study" && cp "$WORK/study/README.md" "$WORK/study/study.json" "$WORK"/study/*.svg "$OUT/study/"
  /usr/bin/python3 tools/gpu-check.d/check_study.py "$WORK/study"
}

# Issue 6: the full study of one family as committed under docs/studies/ARCH/: synth seed-0
# snapshot, 2000 generated images (500 calibrate, 1500 held out), all 36 stress inputs, the
# default variants, batch 1 and 32, --device cuda; the report (without bundles) comes back as
# $OUT/study-ARCH.tar.gz. STUDY_ARCHES picks the families (default inception_v3), STUDY_TAKE
# the image count, STUDY_ARGS extra study options. Wall time is in study_ARCH.time. Measured:
# inception_resnet_v2, 2000 images, four variants, opt level 1: 295 s on one H200 with 16 CPUs
# (docs/studies/README.md). check_study.py then checks the report against its study.json.
STEPS+=(study_images study_full)
# The study's generated images, made once (several study_full runs may share them). Image i is
# img_<100000 + i>.png whichever process writes it, so the set is split over the CPUs (one
# process took 220 s for 2000 images).
study_images() {
  gpu_env >/dev/null
  local take=${STUDY_TAKE:-2000} dir="$WORK/study-images-${STUDY_TAKE:-2000}" first count pid rc=0 pids=()
  [ -f "$dir/.complete" ] && return 0
  mkdir -p "$dir" || return 1
  count=$(( (take + $(nproc) - 1) / $(nproc) ))
  for ((first = 0; first < take; first += count)); do
    "$INFER8" gen-images --count $(( take - first < count ? take - first : count )) --seed $((100000 + first)) \
      --size 400x330 -o "$dir" >/dev/null &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
  [ $rc -eq 0 ] && touch "$dir/.complete"
}

study_full() {
  gpu_env >/dev/null
  local arch rc=0 take=${STUDY_TAKE:-2000}
  study_images || return 1
  for arch in ${STUDY_ARCHES:-inception_v3}; do
    local snap="$WORK/$arch"
    snapshot "$arch" >/dev/null || return 1
    local t0=$SECONDS
    "$INFER8" study "$snap" --images "$WORK/study-images-$take" \
      --take "$take" --every 1 --calib $((take / 4)) --device cuda ${STUDY_ARGS:-} -o "$WORK/study-$arch" \
      >"$OUT/study_$arch.log" 2>&1 || rc=1
    echo "$arch: study wall time $((SECONDS - t0)) s (exit $rc)" | tee "$OUT/study_$arch.time"
    tail -n 6 "$OUT/study_$arch.log"
    [ $rc -eq 0 ] && { /usr/bin/python3 tools/gpu-check.d/check_study.py "$WORK/study-$arch" || rc=1; }
    # one archive per report (without the bundles): the device tool brings back few files
    tar -czf "$OUT/study-$arch.tar.gz" -C "$WORK" --exclude bundles "study-$arch" || rc=1
  done
  return $rc
}
