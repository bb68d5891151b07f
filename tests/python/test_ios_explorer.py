# SPDX-License-Identifier: Apache-2.0
"""The ios_explorer module (docs/python.md): every public name has a test below."""
import json
import pathlib

import pytest

import ios_explorer as ie

ROOT = pathlib.Path(__file__).resolve().parents[2]
ONNX = ROOT / "sample_models" / "onnx" / "squeezenet1_1.onnx"


@pytest.fixture(scope="module")
def model():
    return ie.load("demo_figure2") if "demo_figure2" in {m["name"] for m in ie.models()} \
        else ie.load("inception_v3")


def test_every_public_name_is_tested():
    tests = [n for n in globals() if n.startswith("test_")]
    for name in ie.__all__:
        assert any(name.lower() in t for t in tests), f"no test names {name}"


def test_models_and_load():
    names = [m["name"] for m in ie.models()]
    assert "inception_v3" in names
    m = ie.load("inception_v3")
    assert m.name and m.operator_count > 0 and m.block_count > 0


def test_load_missing_file():
    with pytest.raises(ie.Error, match="no_such_model"):
        ie.load("no_such_model.ios.json")


def test_load_warns_what_it_reads_otherwise():
    # The IOS authors' own ResNet-50 sums a 64-channel conv with a 256-channel skip; it loads
    # as their CUDA runtime computes it, with a warning naming the nodes.
    path = ROOT / "tests" / "data" / "authors_export" / "wider_sums" / "resnet50.ios.json"
    with pytest.warns(UserWarning, match="'7' \\(64 of 256 channels from '3'\\)"):
        m = ie.load(str(path))
    assert m.operator_count == 86
    # Warnings made errors raise the warning, not a half-set error state.
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match="element-wise nodes combine"):
            ie.load(str(path))


def test_parameters_exported_as_inputs_warn_at_the_caller():
    # Graph inputs without values that join the data (a layer scale, a positional embedding)
    # are read as parameters; the warning names them and points at the line that loaded.
    if not ie.onnx_available():
        pytest.skip("built without ONNX")
    path = ROOT / "tests" / "data" / "parameter_inputs.onnx"
    with pytest.warns(UserWarning, match="2 graph inputs without values read as parameters "
                                         "\\('gamma', 'pos'\\)") as record:
        m = ie.load(str(path))
    # conv (the per-channel scale folded into it), the embedding, the residual sum
    assert m.operator_count == 3
    assert record[0].filename == __file__
    for load in (lambda: ie.load(path.read_bytes()),
                 lambda: ie.load_onnx_bytes(path.read_bytes(), source="p.onnx")):
        with pytest.warns(UserWarning) as record:
            load()
        assert record[0].filename == __file__


def test_load_onnx_bytes():
    if not ie.onnx_available():
        pytest.skip("built without ONNX")
    m = ie.load(ONNX.read_bytes())
    assert m.operator_count > 0
    assert ie.load_onnx_bytes(ONNX.read_bytes()).operator_count == m.operator_count
    with pytest.raises(ie.Error):
        ie.load_onnx_bytes(b"not onnx")


def test_errors_carry_the_modules_own_hints():
    # An operator the importer does not know: the remedy is worded as this module's keyword.
    if not ie.onnx_available():
        pytest.skip("built without ONNX")
    data = ONNX.read_bytes()
    assert b"\x22\x04Relu" in data
    with pytest.raises(ie.Error, match=r"Relz x\d+.*\(pass allow_opaque=True to import them") as e:
        ie.load(data.replace(b"\x22\x04Relu", b"\x22\x04Relz"))
    assert str(e.value).count("import them") == 1


def test_onnx_available():
    assert isinstance(ie.onnx_available(), bool)


def test_schedulers_and_cost_models_and_devices():
    keys = [s["key"] for s in ie.schedulers()]
    assert {"sequential", "ios-both", "serenity", "metaflow", "raf-asap"} <= set(keys)
    assert "simulated" in [c["key"] for c in ie.cost_models()]
    assert ie.devices()


def test_schedule(model):
    seq = ie.schedule(model, "sequential")
    both = ie.schedule(model, "ios-both", r=2, s=4, endings="all", max_part_size=50)
    assert isinstance(both, ie.Schedule)
    assert 0 < both.latency_ms <= seq.latency_ms
    assert both.peak_bytes > 0 and both.statistics["states"] > 0
    assert seq.statistics is None
    ops = [op for block in both.stages for st in block for g in st["groups"] for op in g]
    assert len(ops) == model.operator_count
    assert ie.schedule(model, "sequential", batch=8).latency_ms > seq.latency_ms


def test_every_registered_scheduler(model):
    for s in ie.schedulers():
        assert ie.schedule(model, s["key"]).latency_ms > 0, s["key"]


def test_schedule_errors(model):
    with pytest.raises(ie.Error, match="nope"):
        ie.schedule(model, "nope")
    with pytest.raises(ie.Error, match="unknown search parameter bogus"):
        ie.schedule(model, "ios-both", bogus=1)
    with pytest.raises(ie.Error):
        ie.schedule(model, "ios-both", r=0)


def test_progress_and_cancelled():
    m = ie.load("inception_v3")
    calls = []
    ie.schedule(m, "ios-both", progress=lambda d, t: calls.append((d, t)))
    assert calls
    with pytest.raises(ie.Cancelled):
        ie.schedule(m, "ios-both", progress=lambda d, t: False)

    def boom(done, total):
        raise KeyError("stop")
    with pytest.raises(KeyError):
        ie.schedule(m, "ios-both", progress=boom)


def test_timeline_and_trace(model, tmp_path):
    s = ie.schedule(model, "ios-both")
    t = s.timeline()
    assert t["kernels"] and t["latency_us"] == pytest.approx(s.latency_ms * 1000, rel=1e-6)
    assert s.trace("x.csv").startswith("kind,") or "kind," in s.trace("x.csv")
    json.loads(s.trace())
    s.export_trace(str(tmp_path / "t.json"))
    assert json.loads((tmp_path / "t.json").read_text())["traceEvents"]


def test_schedule_files_and_load_schedule(model, tmp_path):
    s = ie.schedule(model, "ios-both")
    path = tmp_path / "s.schedule.json"
    s.save(str(path))
    assert json.loads(s.schedule_json())["format"] == "ios-explorer-schedule"
    back = ie.load_schedule(model, str(path))
    assert back.latency_ms == pytest.approx(s.latency_ms)
    assert back.stages == s.stages
    with pytest.raises(ie.Error):
        ie.load_schedule(model, str(tmp_path / "missing.json"))


def test_model_save(model, tmp_path):
    for name in ("m.ios.json", "m.json"):
        model.save(str(tmp_path / name))
        assert ie.load(str(tmp_path / name)).operator_count == model.operator_count
    s = ie.schedule(model, "ios-both")
    s.save_model(str(tmp_path / "opt.ios.json"))
    assert ie.load(str(tmp_path / "opt.ios.json")).operator_count == model.operator_count


def test_error():
    assert issubclass(ie.Error, Exception) and issubclass(ie.Cancelled, ie.Error)


def test_model():
    assert "Model" in repr(ie.load("inception_v3"))
