"""The light query path gives sentence-transformers' vectors bit for bit, is used only for a few
texts before sentence-transformers is loaded, and declines folders whose modules it does not run."""

import json
import random

import numpy as np
import pytest

from kgviz.datasets import get_dataset
from kgviz.embed.encoder import SentenceEncoder, bundled_model_path, get_encoder
from kgviz.embed.mean_pooling import MeanPoolingModel, MeanPoolingStack, mean_pooling_stack

ODD_TEXTS = [
    "",
    "Amélie",
    "千と千尋の神隠し",
    '<b>Tom</b> & Jerry\'s "show"',
    "word " * 400,  # past the 256-token limit: truncated the same way
]


@pytest.fixture(scope="module")
def texts() -> list[str]:
    kg = get_dataset("demo").kg
    relations = [name.replace("_", " ") for name in kg.relations]
    return list(kg.entities) + relations + ODD_TEXTS


def test_the_bundled_encoder_is_a_mean_pooling_stack():
    assert mean_pooling_stack(bundled_model_path("all-MiniLM-L6-v2")) == MeanPoolingStack(256, 2)


@pytest.mark.parametrize("threads", [1, 2])
def test_small_batches_get_sentence_transformers_vectors_bit_for_bit(texts, threads):
    import torch

    folder = bundled_model_path("all-MiniLM-L6-v2")
    light = MeanPoolingModel(folder, mean_pooling_stack(folder))
    full = get_encoder().model
    rng = random.Random(threads)
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        for _ in range(60):
            batch = rng.sample(texts, rng.randint(1, 16))
            expected = full.encode(
                batch, convert_to_numpy=True, normalize_embeddings=True, show_progress_bar=False
            )
            assert np.array_equal(light.encode(batch), expected), batch
    finally:
        torch.set_num_threads(previous)


def test_the_encoder_answers_a_few_texts_without_sentence_transformers(texts):
    encoder = SentenceEncoder()
    few = encoder.encode(texts[:3])
    assert encoder._model is None and encoder.query_model() is not None
    many = encoder.encode(texts[:40])  # a bulk batch loads sentence-transformers
    assert encoder._model is not None and encoder.query_model() is None
    np.testing.assert_allclose(few, many[:3], atol=1e-6)  # another batch: the last bits may move
    assert np.array_equal(encoder.encode(texts[:3]), few)


def _folder(tmp_path, modules, pooling, config=None, st_config=None):
    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "modules.json").write_text(json.dumps(modules))
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    (tmp_path / "sentence_bert_config.json").write_text(
        json.dumps(config or {"max_seq_length": 128, "do_lower_case": False})
    )
    if st_config is not None:
        (tmp_path / "config_sentence_transformers.json").write_text(json.dumps(st_config))
    return tmp_path


def _module(index: int, path: str, kind: str) -> dict:
    return {
        "idx": index,
        "name": str(index),
        "path": path,
        "type": f"sentence_transformers.models.{kind}",
    }


TRANSFORMER = _module(0, "", "Transformer")
POOLING = _module(1, "1_Pooling", "Pooling")
NORMALIZE = _module(2, "2_Normalize", "Normalize")
DENSE = _module(2, "2_Dense", "Dense")
MEAN = {"pooling_mode_mean_tokens": True, "pooling_mode_cls_token": False}


def test_a_stack_without_normalize_is_normalised_once(tmp_path):
    folder = _folder(tmp_path, [TRANSFORMER, POOLING], MEAN)
    assert mean_pooling_stack(folder) == MeanPoolingStack(128, 1)


@pytest.mark.parametrize(
    ("modules", "pooling", "config", "st_config"),
    [
        ([TRANSFORMER, POOLING, DENSE], MEAN, None, None),
        ([TRANSFORMER, POOLING, NORMALIZE], {"pooling_mode_cls_token": True}, None, None),
        ([TRANSFORMER, POOLING], {**MEAN, "pooling_mode_max_tokens": True}, None, None),
        ([TRANSFORMER, POOLING], {"pooling_mode": "lasttoken"}, None, None),
        ([TRANSFORMER, POOLING], MEAN, {"max_seq_length": 128, "do_lower_case": True}, None),
        ([TRANSFORMER, POOLING], MEAN, {"do_lower_case": False}, None),
        ([TRANSFORMER, POOLING], MEAN, None, {"prompts": {"query": "query: "}}),
        ([POOLING, TRANSFORMER], MEAN, None, None),
    ],
    ids=["dense", "cls", "mean+max", "lasttoken", "lower-case", "no-length", "prompts", "order"],
)
def test_other_stacks_are_left_to_sentence_transformers(
    tmp_path, modules, pooling, config, st_config
):
    assert mean_pooling_stack(_folder(tmp_path, modules, pooling, config, st_config)) is None


def test_a_folder_without_modules_is_left_to_sentence_transformers(tmp_path):
    assert mean_pooling_stack(tmp_path) is None
