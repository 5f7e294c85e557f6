"""The light query path gives sentence-transformers' vectors bit for bit, is used only for a few
texts before sentence-transformers is loaded (which it then never imports), and declines folders
whose modules it does not run."""

import json
import random
import subprocess
import sys

import numpy as np
import pytest

from kgviz.datasets import get_dataset
from kgviz.embed.encoder import SentenceEncoder, bundled_model_path
from kgviz.embed.mean_pooling import MeanPoolingModel, MeanPoolingStack, mean_pooling_stack

ODD_TEXTS = [
    "",
    "Amélie",
    "千と千尋の神隠し",
    '<b>Tom</b> & Jerry\'s "show"',
    "word " * 400,  # past the 256-token limit: truncated the same way
]
BUNDLED = bundled_model_path("all-MiniLM-L6-v2")


@pytest.fixture(scope="module")
def texts() -> list[str]:
    kg = get_dataset("demo").kg
    relations = [name.replace("_", " ") for name in kg.relations]
    return list(kg.entities) + relations


@pytest.fixture(scope="module")
def light() -> MeanPoolingModel:
    return MeanPoolingModel(BUNDLED, mean_pooling_stack(BUNDLED))


@pytest.fixture(scope="module")
def full():
    """sentence-transformers on the same folder (a private encoder: the shared one stays as
    other tests left it)."""
    return SentenceEncoder().model


def reference(model, batch: list[str]) -> np.ndarray:
    return model.encode(
        batch, convert_to_numpy=True, normalize_embeddings=True, show_progress_bar=False
    )


def test_the_bundled_encoder_is_a_mean_pooling_stack():
    assert mean_pooling_stack(BUNDLED) == MeanPoolingStack(256, 2)


@pytest.mark.parametrize("threads", [1, 2])
def test_small_batches_get_sentence_transformers_vectors_bit_for_bit(texts, light, full, threads):
    import torch

    rng = random.Random(threads)
    batches = [ODD_TEXTS, ["", "word " * 400], rng.sample(texts, 16)]
    batches += [rng.sample(texts + ODD_TEXTS, rng.randint(1, 16)) for _ in range(60)]
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        for batch in batches:
            assert np.array_equal(light.encode(batch), reference(full, batch)), batch
    finally:
        torch.set_num_threads(previous)


def test_a_folder_without_normalize_matches_too(tmp_path, texts):
    from sentence_transformers import SentenceTransformer

    for item in BUNDLED.iterdir():
        if item.name != "modules.json":
            (tmp_path / item.name).symlink_to(item)
    modules = json.loads((BUNDLED / "modules.json").read_text())
    (tmp_path / "modules.json").write_text(json.dumps(modules[:2]))
    stack = mean_pooling_stack(tmp_path)
    assert stack == MeanPoolingStack(256, 1)
    light, full = MeanPoolingModel(tmp_path, stack), SentenceTransformer(str(tmp_path))
    for batch in (texts[:16], ODD_TEXTS, texts[-3:]):
        assert np.array_equal(light.encode(batch), reference(full, batch)), batch


def test_the_encoder_answers_a_few_texts_without_sentence_transformers(texts):
    encoder = SentenceEncoder()
    few = encoder.encode(texts[:3])
    assert encoder._model is None and encoder.query_model() is not None
    assert encoder.encode(texts[:3], batch_size=2) is not None  # two batches: not the light path
    assert encoder._model is not None and encoder.query_model() is None
    assert np.array_equal(encoder.encode(texts[:3]), few)


def test_a_fresh_process_encodes_a_question_without_importing_sentence_transformers():
    code = (
        "import sys; from kgviz.embed.encoder import SentenceEncoder; "
        "print(SentenceEncoder().encode(['who directed Forrest Gump']).shape, "
        "'sentence_transformers' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300
    ).stdout
    assert out.strip() == "(1, 384) False"


def _module(index: int, path: str, kind: str) -> dict:
    return {
        "idx": index,
        "name": str(index),
        "path": path,
        "type": f"sentence_transformers.models.{kind}",
    }


TRANSFORMER_MODULE = _module(0, "", "Transformer")
POOLING_MODULE = _module(1, "1_Pooling", "Pooling")
NORMALIZE_MODULE = _module(2, "2_Normalize", "Normalize")
DENSE_MODULE = _module(2, "2_Dense", "Dense")
PLAIN = [TRANSFORMER_MODULE, POOLING_MODULE]
MEAN = {"pooling_mode_mean_tokens": True, "pooling_mode_cls_token": False}
SETTINGS = {"max_seq_length": 128, "do_lower_case": False}
BERT = {"model_type": "bert", "hidden_size": 8}


def _folder(tmp_path, modules=PLAIN, pooling=MEAN, settings=SETTINGS, model=BERT, **files):
    """A folder of sentence-transformers configs (no weights: only the configs are read)."""
    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "modules.json").write_text(json.dumps(modules))
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    (tmp_path / "sentence_bert_config.json").write_text(json.dumps(settings))
    (tmp_path / "config.json").write_text(json.dumps(model))
    for name, content in files.items():
        (tmp_path / name.replace("__", "/")).parent.mkdir(exist_ok=True)
        (tmp_path / name.replace("__", "/")).write_text(json.dumps(content))
    return tmp_path


@pytest.mark.parametrize("pooling", [{"pooling_mode": "mean"}, {"pooling_mode": ["mean"]}])
def test_the_newer_pooling_format_is_read(tmp_path, pooling):
    assert mean_pooling_stack(_folder(tmp_path, pooling=pooling)) == MeanPoolingStack(128, 1)


def test_default_settings_written_out_are_accepted(tmp_path):
    settings = {
        **SETTINGS,
        "modality_config": {
            "text": {"method": "forward", "method_output_name": "last_hidden_state"}
        },
        "module_output_name": "token_embeddings",
    }
    normalize = [*PLAIN, NORMALIZE_MODULE]
    folder = _folder(tmp_path, normalize, settings=settings, **{"2_Normalize__config.json": {}})
    assert mean_pooling_stack(folder) == MeanPoolingStack(128, 2)


@pytest.mark.parametrize(
    ("modules", "pooling", "settings", "model", "files"),
    [
        ([*PLAIN, DENSE_MODULE], MEAN, SETTINGS, BERT, {}),
        ([*PLAIN, NORMALIZE_MODULE], {"pooling_mode_cls_token": True}, SETTINGS, BERT, {}),
        (PLAIN, {**MEAN, "pooling_mode_max_tokens": True}, SETTINGS, BERT, {}),
        (PLAIN, {"pooling_mode": "lasttoken"}, SETTINGS, BERT, {}),
        (PLAIN, MEAN, {**SETTINGS, "do_lower_case": True}, BERT, {}),
        (PLAIN, MEAN, {"do_lower_case": False}, BERT, {}),
        (PLAIN, MEAN, {**SETTINGS, "tokenizer_args": {"model_max_length": 64}}, BERT, {}),
        (PLAIN, MEAN, {**SETTINGS, "model_args": {"attn_implementation": "eager"}}, BERT, {}),
        (PLAIN, MEAN, SETTINGS, {**BERT, "is_encoder_decoder": True}, {}),
        (PLAIN, MEAN, SETTINGS, {**BERT, "torch_dtype": "float16"}, {}),
        (PLAIN, MEAN, SETTINGS, BERT, {"preprocessor_config.json": {}}),
        (
            PLAIN,
            MEAN,
            SETTINGS,
            BERT,
            {"config_sentence_transformers.json": {"default_prompt_name": "query"}},
        ),
        (
            [*PLAIN, NORMALIZE_MODULE],
            MEAN,
            SETTINGS,
            BERT,
            {"2_Normalize__config.json": {"module_input_name": "token_embeddings"}},
        ),
        ([POOLING_MODULE, TRANSFORMER_MODULE], MEAN, SETTINGS, BERT, {}),
        ([TRANSFORMER_MODULE, {"type": "x"}], MEAN, SETTINGS, BERT, {}),
        ([TRANSFORMER_MODULE, "1_Pooling"], MEAN, SETTINGS, BERT, {}),
    ],
    ids=[
        "dense",
        "cls",
        "mean+max",
        "lasttoken",
        "lower-case",
        "no-length",
        "tokenizer-args",
        "model-args",
        "encoder-decoder",
        "float16",
        "processor",
        "default-prompt",
        "token-normalize",
        "order",
        "no-path",
        "not-a-dict",
    ],
)
def test_other_stacks_are_left_to_sentence_transformers(
    tmp_path, modules, pooling, settings, model, files
):
    assert mean_pooling_stack(_folder(tmp_path, modules, pooling, settings, model, **files)) is None


def test_a_folder_without_modules_is_left_to_sentence_transformers(tmp_path):
    assert mean_pooling_stack(tmp_path) is None
    (tmp_path / "modules.json").write_text("{torn")
    assert mean_pooling_stack(tmp_path) is None
