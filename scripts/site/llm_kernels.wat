;; The engine's inner products in WebAssembly with 128-bit SIMD (docs/js/llm/engine.js uses them
;; when the browser has SIMD; its plain-JS kernels are the fallback and are tested the same way).
;; Built by scripts/site/llm_wasm.py with wabt's wat2wasm (pinned in package.json).
;;
;; Memory: float16 -> float32 table (65,536 entries) at 0, then the engine's scratch and the model's
;; blocks, laid out by engine.js. One token: y[r] = sum over blocks of d * (q . x) (Q8_0) or
;; d * ((q - 8) . x) + (m + 8 d) * sum(x) (Q4_1: centred nibbles, so the float32 lane sums lose less
;; to cancellation); q . x in float32 lanes over a block's 32 weights, the blocks' sum in float64.
(module
  (memory (export "memory") 1)

  ;; Q4_1: 20-byte blocks (f16 d, f16 m, 16 bytes: byte j holds weight j low and j + 16 high).
  ;; x: cols float32 (16-byte aligned), xs: the blocks' sums of x as float64, y: rows float32.
  (func (export "q4") (param $w i32) (param $rows i32) (param $nb i32) (param $x i32) (param $xs i32) (param $y i32)
    (local $r i32) (local $b i32) (local $p i32) (local $xo i32) (local $acc f64) (local $dm i32)
    (local $v v128) (local $lo v128) (local $hi v128) (local $s v128) (local $t v128)
    (local.set $p (local.get $w))
    (block $done (loop $row
      (br_if $done (i32.ge_u (local.get $r) (local.get $rows)))
      (local.set $acc (f64.const 0))
      (local.set $b (i32.const 0))
      (local.set $xo (local.get $x))
      (block $end (loop $block
        (br_if $end (i32.ge_u (local.get $b) (local.get $nb)))
        (local.set $dm (i32.load align=1 (local.get $p)))
        (local.set $v (v128.load offset=4 align=1 (local.get $p)))
        (local.set $lo (i8x16.sub (v128.and (local.get $v) (i8x16.splat (i32.const 15))) (i8x16.splat (i32.const 8))))
        (local.set $hi (i8x16.sub (i8x16.shr_u (local.get $v) (i32.const 4)) (i8x16.splat (i32.const 8))))
        (local.set $s (v128.const i32x4 0 0 0 0))
        (local.set $t (i16x8.extend_low_i8x16_s (local.get $lo)))
        (local.set $s (f32x4.add (local.get $s) (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $t))) (v128.load offset=0 (local.get $xo)))))
        (local.set $s (f32x4.add (local.get $s) (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $t))) (v128.load offset=16 (local.get $xo)))))
        (local.set $t (i16x8.extend_high_i8x16_s (local.get $lo)))
        (local.set $s (f32x4.add (local.get $s) (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $t))) (v128.load offset=32 (local.get $xo)))))
        (local.set $s (f32x4.add (local.get $s) (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $t))) (v128.load offset=48 (local.get $xo)))))
        (local.set $t (i16x8.extend_low_i8x16_s (local.get $hi)))
        (local.set $s (f32x4.add (local.get $s) (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $t))) (v128.load offset=64 (local.get $xo)))))
        (local.set $s (f32x4.add (local.get $s) (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $t))) (v128.load offset=80 (local.get $xo)))))
        (local.set $t (i16x8.extend_high_i8x16_s (local.get $hi)))
        (local.set $s (f32x4.add (local.get $s) (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $t))) (v128.load offset=96 (local.get $xo)))))
        (local.set $s (f32x4.add (local.get $s) (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $t))) (v128.load offset=112 (local.get $xo)))))
        (local.set $acc (f64.add (local.get $acc) (f64.add
          (f64.mul (f64.promote_f32 (f32.load (i32.shl (i32.and (local.get $dm) (i32.const 65535)) (i32.const 2)))) (f64.promote_f32 (f32.add (f32.add (f32x4.extract_lane 0 (local.get $s)) (f32x4.extract_lane 1 (local.get $s))) (f32.add (f32x4.extract_lane 2 (local.get $s)) (f32x4.extract_lane 3 (local.get $s))))))
          (f64.mul (f64.add (f64.promote_f32 (f32.load (i32.shl (i32.shr_u (local.get $dm) (i32.const 16)) (i32.const 2))))
                            (f64.mul (f64.const 8) (f64.promote_f32 (f32.load (i32.shl (i32.and (local.get $dm) (i32.const 65535)) (i32.const 2))))))
                   (f64.load (i32.add (local.get $xs) (i32.shl (local.get $b) (i32.const 3))))))))
        (local.set $p (i32.add (local.get $p) (i32.const 20)))
        (local.set $xo (i32.add (local.get $xo) (i32.const 128)))
        (local.set $b (i32.add (local.get $b) (i32.const 1)))
        (br $block)))
      (f32.store (i32.add (local.get $y) (i32.shl (local.get $r) (i32.const 2))) (f32.demote_f64 (local.get $acc)))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $row))))

  ;; Q8_0: 34-byte blocks (f16 d, 32 signed bytes).
  (func (export "q8") (param $w i32) (param $rows i32) (param $nb i32) (param $x i32) (param $y i32)
    (local $r i32) (local $b i32) (local $p i32) (local $xo i32) (local $acc f64)
    (local $v v128) (local $s v128) (local $t v128)
    (local.set $p (local.get $w))
    (block $done (loop $row
      (br_if $done (i32.ge_u (local.get $r) (local.get $rows)))
      (local.set $acc (f64.const 0))
      (local.set $b (i32.const 0))
      (local.set $xo (local.get $x))
      (block $end (loop $block
        (br_if $end (i32.ge_u (local.get $b) (local.get $nb)))
        (local.set $s (v128.const i32x4 0 0 0 0))
        (local.set $v (v128.load offset=2 align=1 (local.get $p)))
        (local.set $t (i16x8.extend_low_i8x16_s (local.get $v)))
        (local.set $s (f32x4.add (local.get $s) (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $t))) (v128.load offset=0 (local.get $xo)))))
        (local.set $s (f32x4.add (local.get $s) (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $t))) (v128.load offset=16 (local.get $xo)))))
        (local.set $t (i16x8.extend_high_i8x16_s (local.get $v)))
        (local.set $s (f32x4.add (local.get $s) (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $t))) (v128.load offset=32 (local.get $xo)))))
        (local.set $s (f32x4.add (local.get $s) (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $t))) (v128.load offset=48 (local.get $xo)))))
        (local.set $v (v128.load offset=18 align=1 (local.get $p)))
        (local.set $t (i16x8.extend_low_i8x16_s (local.get $v)))
        (local.set $s (f32x4.add (local.get $s) (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $t))) (v128.load offset=64 (local.get $xo)))))
        (local.set $s (f32x4.add (local.get $s) (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $t))) (v128.load offset=80 (local.get $xo)))))
        (local.set $t (i16x8.extend_high_i8x16_s (local.get $v)))
        (local.set $s (f32x4.add (local.get $s) (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $t))) (v128.load offset=96 (local.get $xo)))))
        (local.set $s (f32x4.add (local.get $s) (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $t))) (v128.load offset=112 (local.get $xo)))))
        (local.set $acc (f64.add (local.get $acc)
          (f64.mul (f64.promote_f32 (f32.load (i32.shl (i32.load16_u align=1 (local.get $p)) (i32.const 2)))) (f64.promote_f32 (f32.add (f32.add (f32x4.extract_lane 0 (local.get $s)) (f32x4.extract_lane 1 (local.get $s))) (f32.add (f32x4.extract_lane 2 (local.get $s)) (f32x4.extract_lane 3 (local.get $s))))))))
        (local.set $p (i32.add (local.get $p) (i32.const 34)))
        (local.set $xo (i32.add (local.get $xo) (i32.const 128)))
        (local.set $b (i32.add (local.get $b) (i32.const 1)))
        (br $block)))
      (f32.store (i32.add (local.get $y) (i32.shl (local.get $r) (i32.const 2))) (f32.demote_f64 (local.get $acc)))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $row)))))
