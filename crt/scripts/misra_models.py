#!/usr/bin/env python3
"""Generate the models of the `generated` MISRA group (crt/scripts/misra_check.py --generated).

Writes one utvm-build output directory per model into OUT_DIR (replaced), and system_lib/ with the
system library of the packed models (utvm-build syslib) and a crt_config.h:
  * real models: the digits example (int8 with the "c" and the "packed" interface, float32) and,
    when ../shared/models is present (CI), hello_world, micro_speech, keyword_scrambled (SVDF,
    int16 input), simple_add and one single-operator model of every ../shared/models/ops family;
  * synthetic models built with tests/tflite_writer.py (the `test` extras: tflite, flatbuffers)
    that reach the kernels no real model uses, and the fuzzing seeds (one small model per operator
    and type) that include a kernel header nothing before them did: every kernel header is then
    in at least one model.
A missing model source is reported and skipped (the check then counts fewer findings, which
passes); a model that fails to compile fails the script.

Needs the utvm_build package (the venv). Usage: misra_models.py OUT_DIR
"""
import os
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "models")

# (directory and C name, model file, options)
REAL_MODELS = [
    ("digits", os.path.join(ROOT, "examples", "models", "digits", "digits_int8.tflite"), {}),
    ("digits_packed", os.path.join(ROOT, "examples", "models", "digits", "digits_int8.tflite"),
     {"interface": "packed"}),
    ("digits_float", os.path.join(ROOT, "examples", "models", "digits", "digits_float.tflite"),
     {"workspace": "user", "io": "workspace"}),
    ("hello_world_float", os.path.join(SHARED, "examples", "hello_world_float.tflite"), {}),
    ("hello_world_int8", os.path.join(SHARED, "examples", "hello_world_int8.tflite"), {"interface": "packed"}),
    ("micro_speech", os.path.join(SHARED, "examples", "micro_speech_quantized.tflite"), {"io": "workspace"}),
    ("keyword_scrambled", os.path.join(SHARED, "examples", "keyword_scrambled.tflite"), {}),
    ("keyword_scrambled_8bit", os.path.join(SHARED, "examples", "keyword_scrambled_8bit.tflite"), {}),
    ("simple_add", os.path.join(SHARED, "examples", "simple_add_model.tflite"), {}),
    # state and control flow (docs/state.md): resource variables + CALL_ONCE, IF, WHILE
    ("streaming_kws", os.path.join(ROOT, "tests", "data", "state", "streaming_kws_int8.tflite"), {}),
    ("cond_float", os.path.join(ROOT, "tests", "data", "state", "cond_float.tflite"), {"state": "user"}),
    ("while_float", os.path.join(ROOT, "tests", "data", "state", "while_float.tflite"),
     {"state": "user", "workspace": "user"}),
    # a stateful packed model (its packed reset), LSTMs, detection post-processing
    ("streaming_kws_packed", os.path.join(ROOT, "tests", "data", "state", "streaming_kws_int8.tflite"),
     {"interface": "packed"}),
    ("lstm_int8", os.path.join(ROOT, "tests", "data", "lstm", "keras_lstm_int8.tflite"), {}),
    ("lstm_float", os.path.join(ROOT, "tests", "data", "lstm", "keras_lstm_float.tflite"), {}),
    ("ssd_int8", os.path.join(ROOT, "tests", "data", "detection", "ssd_int8_regular.tflite"), {}),
    ("ssd_float_fast", os.path.join(ROOT, "tests", "data", "detection", "ssd_float_fast.tflite"), {}),
    # TFLM's signal library (docs/operators/signal.md): the micro_speech audio front ends
    ("audio_preprocessor_int8", os.path.join(ROOT, "third_party", "tflite-micro", "audio_preprocessor_int8.tflite"),
     {}),
    ("audio_preprocessor_float", os.path.join(ROOT, "third_party", "tflite-micro",
                                              "audio_preprocessor_float.tflite"), {}),
] + [("ops_" + f, os.path.join(SHARED, "ops", f, f + "0.tflite"), {})
     for f in ("add", "conv", "leaky_relu", "pad", "quantize", "strided_slice", "sub")]


def _q(rng, shape, lo=-127, hi=127, dtype="int8"):
    import numpy as np

    return rng.integers(lo, hi + 1, size=shape).astype(dtype) if dtype != "float32" else \
        rng.standard_normal(shape).astype(np.float32)


def synthetic_models():
    """{name: .tflite bytes} of small multi-operator models covering the remaining kernels."""
    import numpy as np

    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from tflite_writer import ModelBuilder, flex_map

    rng = np.random.default_rng(0)
    models = {}

    # float32: depthwise conv, relu, leaky relu, add, sub, mul, logistic, tanh, concatenation,
    # mean, transpose conv, quantize/dequantize, svdf, reshape copy
    mb = ModelBuilder("utvm-build MISRA coverage model, float32")
    x = mb.tensor([1, 4, 4, 2], "float32")
    w = mb.tensor([1, 3, 3, 2], "float32", data=_q(rng, [1, 3, 3, 2], dtype="float32"))
    b = mb.tensor([2], "float32", data=_q(rng, [2], dtype="float32"))
    dw = mb.tensor([1, 4, 4, 2], "float32")
    mb.operator("DEPTHWISE_CONV_2D", [x, w, b], [dw], {"padding": "SAME", "stride_w": 1, "stride_h": 1,
                                                       "depth_multiplier": 1})
    r = mb.tensor([1, 4, 4, 2], "float32")
    mb.operator("RELU6", [dw], [r])
    lr = mb.tensor([1, 4, 4, 2], "float32")
    mb.operator("LEAKY_RELU", [r], [lr], {"alpha": 0.2})
    a = mb.tensor([1, 4, 4, 2], "float32")
    mb.operator("ADD", [lr, x], [a])
    s = mb.tensor([1, 4, 4, 2], "float32")
    mb.operator("SUB", [a, mb.tensor([1, 1, 1, 2], "float32", data=_q(rng, [1, 1, 1, 2], dtype="float32"))], [s])
    m = mb.tensor([1, 4, 4, 2], "float32")
    mb.operator("MUL", [s, mb.tensor([2], "float32", data=_q(rng, [2], dtype="float32"))], [m])
    lo = mb.tensor([1, 4, 4, 2], "float32")
    mb.operator("LOGISTIC", [m], [lo])
    th = mb.tensor([1, 4, 4, 2], "float32")
    mb.operator("TANH", [m], [th])
    c = mb.tensor([1, 4, 4, 4], "float32")
    mb.operator("CONCATENATION", [lo, th], [c], {"axis": 3})
    mean = mb.tensor([1, 4], "float32")
    mb.operator("MEAN", [c, mb.tensor([2], "int32", data=np.array([1, 2]))], [mean], {"keep_dims": False})
    tw = mb.tensor([2, 3, 3, 4], "float32", data=_q(rng, [2, 3, 3, 4], dtype="float32"))
    tc = mb.tensor([1, 8, 8, 2], "float32")
    mb.operator("TRANSPOSE_CONV", [mb.tensor([4], "int32", data=np.array([1, 8, 8, 2])), tw, c], [tc],
                {"padding": "SAME", "stride_w": 2, "stride_h": 2})
    q = mb.tensor([1, 8, 8, 2], "int8", scale=0.05, zero_point=3)
    mb.operator("QUANTIZE", [tc], [q])
    dq = mb.tensor([1, 8, 8, 2], "float32")
    mb.operator("DEQUANTIZE", [q], [dq])
    state = mb.tensor([1, 4 * 3], "float32", is_variable=True)
    sv = mb.tensor([1, 2], "float32")
    mb.operator("SVDF", [mean, mb.tensor([4, 4], "float32", data=_q(rng, [4, 4], dtype="float32")),
                         mb.tensor([4, 3], "float32", data=_q(rng, [4, 3], dtype="float32")),
                         mb.tensor([2], "float32", data=_q(rng, [2], dtype="float32")), state], [sv], {"rank": 2})
    y = mb.tensor([2, 3], "float32")
    yc = mb.tensor([6], "float32")
    mb.operator("RESHAPE", [y, mb.tensor([1], "int32", data=np.array([6]))], [yc])
    models["ops_float"] = mb.build(inputs=[x, y], outputs=[dq, sv, yc])

    # int8: grouped conv, relu, leaky relu, mul, logistic, tanh, concatenation, mean, transpose conv
    # (per-channel), fully connected (per-tensor), dequantize
    mb = ModelBuilder("utvm-build MISRA coverage model, int8")
    x = mb.tensor([1, 4, 4, 2], "int8", scale=0.05, zero_point=-3)
    gw = mb.tensor([2, 3, 3, 1], "int8", data=_q(rng, [2, 3, 3, 1]), scale=[0.02, 0.03], zero_point=[0, 0])
    gc = mb.tensor([1, 4, 4, 2], "int8", scale=0.08, zero_point=-2)
    mb.operator("CONV_2D", [x, gw, mb.tensor([2], "int32", data=rng.integers(-500, 500, 2))], [gc],
                {"padding": "SAME", "stride_w": 1, "stride_h": 1})  # 2 groups: conv2d_s8_generic.h
    r = mb.tensor([1, 4, 4, 2], "int8", scale=0.03, zero_point=-128)
    mb.operator("RELU", [gc], [r])
    lr = mb.tensor([1, 4, 4, 2], "int8", scale=0.04, zero_point=5)
    mb.operator("LEAKY_RELU", [x], [lr], {"alpha": 0.3})
    m = mb.tensor([1, 4, 4, 2], "int8", scale=0.06, zero_point=1)
    mb.operator("MUL", [r, lr], [m])
    lo = mb.tensor([1, 4, 4, 2], "int8", scale=1 / 256, zero_point=-128)
    mb.operator("LOGISTIC", [m], [lo])
    th = mb.tensor([1, 4, 4, 2], "int8", scale=1 / 128, zero_point=0)
    mb.operator("TANH", [m], [th])
    c = mb.tensor([1, 4, 4, 4], "int8", scale=1 / 128, zero_point=0)
    mb.operator("CONCATENATION", [th, th], [c], {"axis": 3})
    mean = mb.tensor([1, 1, 1, 4], "int8", scale=0.01, zero_point=2)
    mb.operator("MEAN", [c, mb.tensor([2], "int32", data=np.array([1, 2]))], [mean], {"keep_dims": True})
    tw = mb.tensor([2, 3, 3, 4], "int8", data=_q(rng, [2, 3, 3, 4]), scale=[0.02, 0.03], zero_point=0)
    tc = mb.tensor([1, 8, 8, 2], "int8", scale=0.1, zero_point=-7)
    mb.operator("TRANSPOSE_CONV", [mb.tensor([4], "int32", data=np.array([1, 8, 8, 2])), tw, c], [tc],
                {"padding": "SAME", "stride_w": 2, "stride_h": 2})
    deq = mb.tensor([1, 8, 8, 2], "float32")
    mb.operator("DEQUANTIZE", [tc], [deq])
    fc = mb.tensor([1, 3], "int8", scale=0.05, zero_point=4)
    mb.operator("FULLY_CONNECTED", [mean, mb.tensor([3, 4], "int8", data=_q(rng, [3, 4]), scale=0.02, zero_point=0),
                                    mb.tensor([3], "int32", data=rng.integers(-500, 500, 3))], [fc])
    models["ops_int8"] = mb.build(inputs=[x], outputs=[deq, fc, lo])

    # int16 (16x8): relu, add (power-of-two scales), mul, logistic, tanh, softmax, mean, pooling,
    # depthwise conv, fully connected (per-tensor and per-channel)
    mb = ModelBuilder("utvm-build MISRA coverage model, int16")
    x = mb.tensor([1, 4, 4, 2], "int16", scale=1 / 4096, zero_point=0)
    r = mb.tensor([1, 4, 4, 2], "int16", scale=1 / 4096, zero_point=0)
    mb.operator("RELU", [x], [r])
    x2 = mb.tensor([1, 4, 4, 2], "int16", scale=1 / 2048, zero_point=0)
    a = mb.tensor([1, 4, 4, 2], "int16", scale=1 / 2048, zero_point=0)
    mb.operator("ADD", [r, x2], [a], {"pot_scale_int16": True})
    m = mb.tensor([1, 4, 4, 2], "int16", scale=1 / 1000, zero_point=0)
    mb.operator("MUL", [a, x], [m])
    lo = mb.tensor([1, 4, 4, 2], "int16", scale=1 / 32768, zero_point=0)
    mb.operator("LOGISTIC", [m], [lo])
    th = mb.tensor([1, 4, 4, 2], "int16", scale=1 / 32768, zero_point=0)
    mb.operator("TANH", [m], [th])
    sm = mb.tensor([1, 4, 4, 2], "int16", scale=1 / 32768, zero_point=0)
    mb.operator("SOFTMAX", [m], [sm], {"beta": 1.0})
    ap = mb.tensor([1, 2, 2, 2], "int16", scale=1 / 32768, zero_point=0)
    mb.operator("AVERAGE_POOL_2D", [lo], [ap], {"padding": "VALID", "stride_w": 2, "stride_h": 2,
                                                 "filter_width": 2, "filter_height": 2})
    mp = mb.tensor([1, 2, 2, 2], "int16", scale=1 / 32768, zero_point=0)
    mb.operator("MAX_POOL_2D", [th], [mp], {"padding": "VALID", "stride_w": 2, "stride_h": 2,
                                             "filter_width": 2, "filter_height": 2})
    dw = mb.tensor([1, 2, 2, 4], "int16", scale=1 / 8192, zero_point=0)
    dww = mb.tensor([1, 3, 3, 4], "int8", data=_q(rng, [1, 3, 3, 4]), scale=[0.01, 0.02, 0.03, 0.04], zero_point=0,
                    quantized_dimension=3)
    mb.operator("DEPTHWISE_CONV_2D", [ap, dww, mb.tensor([4], "int64", data=rng.integers(-500, 500, 4))], [dw],
                {"padding": "SAME", "stride_w": 1, "stride_h": 1, "depth_multiplier": 2})
    mean = mb.tensor([1, 4], "int16", scale=1 / 8192, zero_point=0)
    mb.operator("MEAN", [dw, mb.tensor([2], "int32", data=np.array([1, 2]))], [mean], {"keep_dims": False})
    fc = mb.tensor([1, 3], "int16", scale=1 / 4096, zero_point=0)
    mb.operator("FULLY_CONNECTED", [mean, mb.tensor([3, 4], "int8", data=_q(rng, [3, 4]), scale=0.02, zero_point=0),
                                    mb.tensor([3], "int64", data=rng.integers(-500, 500, 3))], [fc])
    fcp = mb.tensor([1, 3], "int16", scale=1 / 4096, zero_point=0)
    mb.operator("FULLY_CONNECTED", [mean, mb.tensor([3, 4], "int8", data=_q(rng, [3, 4]), scale=[0.02, 0.01, 0.03],
                                                    zero_point=0), -1], [fcp])
    tc = mb.tensor([1, 4, 4, 2], "int16", scale=1 / 1024, zero_point=0)
    mb.operator("TRANSPOSE_CONV", [mb.tensor([4], "int32", data=np.array([1, 4, 4, 2])),
                                   mb.tensor([2, 3, 3, 2], "int8", data=_q(rng, [2, 3, 3, 2]), scale=[0.02, 0.03],
                                             zero_point=0), mp, mb.tensor([2], "int64", data=np.array([100, -50]))],
                [tc], {"padding": "SAME", "stride_w": 2, "stride_h": 2})
    models["ops_int16"] = mb.build(inputs=[x, x2], outputs=[sm, fc, fcp, tc])
    # TFLM signal library, the stateful operators: framer -> overlap-add -> delay (int16), stacker,
    # float32 overlap-add
    mb = ModelBuilder("utvm-build MISRA coverage model, signal library")
    a, s_in, f_in = mb.tensor([32], "int16"), mb.tensor([4], "int16"), mb.tensor([2, 8], "float32")
    frames, fvalid = mb.tensor([4, 16], "int16"), mb.tensor([], "bool")
    mb.custom_operator("SignalFramer", [a], [frames, fvalid], flex_map(frame_size=16, frame_step=8, prefill=True))
    ola = mb.tensor([32], "int16")
    mb.custom_operator("SignalOverlapAdd", [frames], [ola], flex_map(T=7, frame_step=8))
    dl = mb.tensor([32], "int16")
    mb.custom_operator("SignalDelay", [ola], [dl], flex_map(delay_length=5))
    st, svalid = mb.tensor([12], "int16"), mb.tensor([], "bool")
    mb.custom_operator("SignalStacker", [s_in], [st, svalid], flex_map(num_channels=4, stacker_left_context=1,
                                                                   stacker_right_context=1, stacker_step=1))
    fo = mb.tensor([16], "float32")
    mb.custom_operator("SignalOverlapAdd", [f_in], [fo], flex_map(T=0, frame_step=8))
    models["signal_state"] = mb.build([a, s_in, f_in], [dl, fvalid, st, svalid, fo])
    return models


def coverage_seeds(out_dir, dirs, compile_bytes, write_directory, CompileOptions):
    """The fuzzing seeds (fuzz/seeds*.py: one small model per operator and type) that bring in a
    kernel header none of ``dirs`` includes, first come first taken: every kernel header a seed
    reaches is then in the checked set. Returns the names written."""
    from utvm_build.emit.cnames import c_identifier

    covered = set()
    for d in dirs:
        kernels = os.path.join(d, "src", "kernels")
        if os.path.isdir(kernels):
            covered.update("src/kernels/" + f for f in os.listdir(kernels))
    try:
        sys.path.insert(0, ROOT)
        from fuzz.seeds import generated_seeds
        seeds = list(generated_seeds())
    except ImportError as e:
        print("misra models: seed models skipped (%s; install the test extras)" % e)
        return []
    names, used = [], set()
    for seed, data in seeds:
        name = c_identifier("seed_" + seed, used)   # also unique among the seeds
        compiled = compile_bytes(data, name, CompileOptions(name=name), name + ".tflite")
        new = {f for f in compiled.files if f.startswith("src/kernels/")} - covered
        if new:
            write_directory(os.path.join(out_dir, name), compiled.files)
            covered |= new
            names.append(name)
    return names


def compile_all(out_dir):
    sys.path.insert(0, ROOT)  # a source checkout works too (the venv has the package installed)
    from utvm_build.compiler import compile_bytes, compile_model
    from utvm_build.emit.output import write_directory
    from utvm_build.options import CompileOptions

    if os.path.isdir(out_dir):
        shutil.rmtree(out_dir)
    os.makedirs(out_dir)
    done, skipped = [], []
    for name, path, opts in REAL_MODELS:
        if not os.path.isfile(path):
            skipped.append(name)
            continue
        compile_model(path, os.path.join(out_dir, name), CompileOptions(name=name, **opts))
        done.append(name)
    try:
        synth = synthetic_models()
    except ImportError as e:
        print("misra models: synthetic models skipped (%s; install the test extras)" % e)
        synth = {}
    for name, data in sorted(synth.items()):
        compiled = compile_bytes(data, name, CompileOptions(name=name), name + ".tflite")
        write_directory(os.path.join(out_dir, name), compiled.files)
        done.append(name)
    done += coverage_seeds(out_dir, [os.path.join(out_dir, n) for n in done], compile_bytes, write_directory,
                           CompileOptions)
    # the system library of the packed models (utvm-build syslib), checked as one more directory
    packed = [n for n, _, o in REAL_MODELS if o.get("interface") == "packed" and n in done]
    if packed:
        from utvm_build.emit.system_lib import write_system_lib

        lib = os.path.join(out_dir, "system_lib")
        write_system_lib([os.path.join(out_dir, n) for n in packed],
                         os.path.join(lib, "src", "utvm_system_lib.c"))
        os.makedirs(os.path.join(lib, "include"))
        shutil.copy(os.path.join(out_dir, packed[0], "include", "crt_config.h"), os.path.join(lib, "include"))
        done.append("system_lib")
    if skipped:
        print("misra models: not found, skipped: %s" % " ".join(skipped))
    print("misra models: %d generated in %s" % (len(done), out_dir))


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    compile_all(os.path.abspath(argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
