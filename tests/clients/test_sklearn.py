"""scikit-learn with ``array_api_dispatch=True``: the estimators tagged
``array_api_support`` and the metrics and kernels its own Array API tests
cover (https://scikit-learn.org/1.9/modules/array_api.html).

Each estimator is fitted and used inside the call, on the backend's arrays
and on NumPy's; its outputs must agree.
"""

from __future__ import annotations

import copy
import io
import pickle
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from .client_calls import SPEC, Call, Deviation, call, check, import_client, parametrize

sklearn = import_client("sklearn", "scikit-learn")
import joblib  # noqa: E402  (a dependency of scikit-learn)
from sklearn import metrics, preprocessing  # noqa: E402
from sklearn.decomposition import PCA  # noqa: E402
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis  # noqa: E402
from sklearn.kernel_approximation import Nystroem  # noqa: E402
from sklearn.linear_model import (  # noqa: E402
    LogisticRegression,
    PoissonRegressor,
    Ridge,
    RidgeClassifierCV,
    RidgeCV,
)
from sklearn.metrics import pairwise  # noqa: E402
from sklearn.model_selection import (  # noqa: E402
    GridSearchCV,
    cross_val_score,
    train_test_split,
)
from sklearn.naive_bayes import GaussianNB  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.utils.multiclass import type_of_target, unique_labels  # noqa: E402

rng = np.random.default_rng(18)
X = rng.normal(size=(60, 5))
X_TEST = rng.normal(size=(7, 5))
CLASSES = (X[:, 0] + X[:, 1] > 0).astype(np.int64) + (X[:, 2] > 1).astype(np.int64)
BINARY = (X[:, 0] > 0).astype(np.int64)
PREDICTED = np.where(rng.random(60) < 0.8, CLASSES, (CLASSES + 1) % 3)
SCORES = 1 / (1 + np.exp(-(X[:, 0] + rng.normal(scale=0.7, size=60))))
PROBA = np.exp(X[:, :3]) / np.exp(X[:, :3]).sum(axis=1, keepdims=True)
TARGET = X @ np.array([1.5, -2.0, 0.5, 0.0, 3.0]) + rng.normal(scale=0.1, size=60)
TARGETS = np.stack([TARGET, X[:, 0] - X[:, 4]], axis=1)
ESTIMATE = TARGET + rng.normal(scale=0.5, size=60)
POSITIVE = np.exp(X[:, 0] / 2)
POSITIVE_ESTIMATE = POSITIVE * np.exp(rng.normal(scale=0.1, size=60))
COUNTS = rng.poisson(np.exp(X[:, 0] / 2)).astype(np.float64)
HISTOGRAMS = np.abs(X)
LABELS = np.array([30, 10, 20, 10, 30, 30], dtype=np.int64)


# Consumer deviations: scikit-learn itself steps outside the standard.
DIFF_POSITIONAL_N = Deviation(
    TypeError,
    "scikit-learn 1.9.1: roc_curve calls xp.diff(x, 2), n positional; the standard's n is "
    f"keyword-only ({SPEC}/generated/array_api.diff.html); array API route from "
    "https://github.com/scikit-learn/scikit-learn/pull/30878",
)
NUMPY_DTYPES = Deviation(
    TypeError,
    "scikit-learn 1.9.1: the scale/minmax_scale/maxabs_scale functions hand NumPy's "
    "FLOAT_DTYPES to check_array, which passes np.float64 to xp.isdtype; the standard's "
    f"isdtype takes the namespace's own dtypes ({SPEC}/generated/array_api.isdtype.html). "
    "dlarray accepts NumPy dtypes where it has the same dtype (a documented extension, "
    "docs/beyond.md), so only array-api-strict raises",
    backends=("array_api_strict",),
)
# array-api-strict warns first, comparing its dtype with NumPy's; the call then
# raises the same TypeError as on dlarray.
STRICT_DTYPE_WARNING = pytest.mark.filterwarnings(
    "ignore:You are comparing a array_api_strict dtype:UserWarning"
)
# StandardScaler divides 0 by 0 on purpose and silences NumPy with np.errstate,
# which it can only do for NumPy itself; array-api-strict computes with NumPy
# and so warns (dlarray follows IEEE 754 quietly, as the standard asks).
ZERO_BY_ZERO = pytest.mark.filterwarnings(
    "ignore:invalid value encountered in divide:RuntimeWarning"
)


@pytest.fixture(autouse=True)
def _array_api_dispatch() -> Iterator[None]:
    with sklearn.config_context(array_api_dispatch=True):
        yield


def fitted(estimator: Any, method: str) -> Callable[..., Any]:
    """A function that fits a clone of ``estimator`` on its arrays, then
    calls ``method`` on the first of them (the samples)."""

    def run(*arrays: Any) -> Any:
        model = sklearn.base.clone(estimator).fit(*arrays)
        return getattr(model, method)(arrays[0])

    return run


def attribute(estimator: Any, name: str) -> Callable[..., Any]:
    """A function that fits a clone of ``estimator`` on its arrays and
    answers its fitted attribute ``name``."""

    def run(*arrays: Any) -> Any:
        return getattr(sklearn.base.clone(estimator).fit(*arrays), name)

    return run


def _pca_round_trip(xp: Any, x: Any) -> Any:
    model = PCA(n_components=3, svd_solver="full").fit(x)
    return model.inverse_transform(model.transform(x))


def _label_encoder_round_trip(xp: Any, labels: Any) -> Any:
    encoder = preprocessing.LabelEncoder().fit(labels)
    codes = encoder.transform(labels)
    return codes, encoder.classes_, encoder.inverse_transform(codes)


def _scaler_inverse(xp: Any, x: Any, test: Any) -> Any:
    scaler = preprocessing.StandardScaler().fit(x)
    return scaler.inverse_transform(scaler.transform(test))


def _kernel_centerer(xp: Any, x: Any, test: Any) -> Any:
    centerer = preprocessing.KernelCenterer().fit(x @ x.T)
    return centerer.transform(test @ x.T)


WHITENING_PCA = PCA(n_components=2, whiten=True, svd_solver="full")
EIGH_PCA = PCA(n_components=3, svd_solver="covariance_eigh")

ESTIMATORS: list[Call] = [
    call("LDA-predict", fitted(LinearDiscriminantAnalysis(), "predict"), X, CLASSES),
    call("LDA-predict_proba", fitted(LinearDiscriminantAnalysis(), "predict_proba"), X, CLASSES),
    call("LDA-transform", fitted(LinearDiscriminantAnalysis(), "transform"), X, CLASSES),
    call("LDA-decision_function", fitted(LinearDiscriminantAnalysis(), "decision_function"),
         X, BINARY),
    call("PCA-full", fitted(PCA(n_components=3, svd_solver="full"), "transform"), X),
    call("PCA-full-whiten", fitted(WHITENING_PCA, "transform"), X),
    call("PCA-covariance_eigh", fitted(EIGH_PCA, "transform"), X),
    call("PCA-explained_variance", attribute(PCA(0.8, svd_solver="full"),
                                             "explained_variance_ratio_"), X),
    Call("PCA-inverse_transform", _pca_round_trip, (X,)),
    call("Ridge-svd", fitted(Ridge(alpha=0.5, solver="svd"), "predict"), X, TARGET),
    call("Ridge-svd-multitarget", attribute(Ridge(solver="svd"), "coef_"), X, TARGETS),
    call("Ridge-svd-intercept", attribute(Ridge(solver="svd"), "intercept_"), X, TARGET),
    call("RidgeCV", attribute(RidgeCV(alphas=(0.1, 1.0, 10.0)), "coef_"), X, TARGET),
    call("RidgeClassifierCV", fitted(RidgeClassifierCV(alphas=(0.1, 1.0)), "predict"),
         X, CLASSES),
    call("GaussianNB-predict", fitted(GaussianNB(), "predict"), X, CLASSES),
    call("GaussianNB-predict_proba", fitted(GaussianNB(), "predict_proba"), X, CLASSES),
    call("LogisticRegression-lbfgs", fitted(LogisticRegression(), "predict_proba"), X, CLASSES,
         call_rtol=1e-5),
    call("PoissonRegressor", fitted(PoissonRegressor(), "predict"), X, COUNTS, call_rtol=1e-5),
    call("StandardScaler", fitted(preprocessing.StandardScaler(), "transform"), X,
         call_marks=(ZERO_BY_ZERO,)),
    Call("StandardScaler-inverse", _scaler_inverse, (X, X_TEST), marks=(ZERO_BY_ZERO,)),
    call("MinMaxScaler", fitted(preprocessing.MinMaxScaler(), "transform"), X),
    call("MinMaxScaler-range", fitted(preprocessing.MinMaxScaler((-1, 1)), "transform"), X_TEST),
    call("MaxAbsScaler", fitted(preprocessing.MaxAbsScaler(), "transform"), X),
    call("Normalizer-l2", fitted(preprocessing.Normalizer(), "transform"), X),
    call("Normalizer-l1", fitted(preprocessing.Normalizer("l1"), "transform"), X),
    call("Normalizer-max", fitted(preprocessing.Normalizer("max"), "transform"), X),
    call("Binarizer", fitted(preprocessing.Binarizer(threshold=0.3), "transform"), X),
    Call("KernelCenterer", _kernel_centerer, (X, X_TEST)),
    call("PolynomialFeatures", fitted(preprocessing.PolynomialFeatures(2), "transform"), X),
    call("PolynomialFeatures-interactions",
         fitted(preprocessing.PolynomialFeatures(3, interaction_only=True), "transform"),
         X[:, :3]),
    call("Nystroem", fitted(Nystroem(n_components=10, random_state=0), "transform"), X),
    Call("LabelEncoder", _label_encoder_round_trip, (LABELS,)),
    call("normalize", preprocessing.normalize, X, norm="l1", axis=0),
    *(
        call(f.__name__, f, X, call_deviations=(NUMPY_DTYPES,), call_marks=(STRICT_DTYPE_WARNING,))
        for f in (preprocessing.minmax_scale, preprocessing.maxabs_scale)
    ),
    # scale itself converts with np.asarray (sklearn/preprocessing/_data.py,
    # `X = np.asarray(X)`) and answers in NumPy arrays.
    call("scale", preprocessing.scale, X, call_native=False, call_deviations=(NUMPY_DTYPES,),
         call_marks=(STRICT_DTYPE_WARNING,)),
]


def _pipeline(xp: Any, x: Any, y: Any) -> Any:
    steps = (preprocessing.StandardScaler(), PCA(n_components=3, svd_solver="full"),
             LinearDiscriminantAnalysis())
    return make_pipeline(*steps).fit(x, y).predict_proba(x)


def _grid_search(xp: Any, x: Any, y: Any) -> Any:
    search = GridSearchCV(Ridge(solver="svd"), {"alpha": [0.1, 1.0, 10.0]}, cv=3).fit(x, y)
    return search.best_params_["alpha"], search.best_estimator_.coef_


def _joblib_round_trip(model: Any) -> Any:
    buffer = io.BytesIO()
    joblib.dump(model, buffer)
    buffer.seek(0)
    return joblib.load(buffer)


def _kept(round_trip: Callable[[Any], Any]) -> Callable[..., Any]:
    """A fitted model that went through ``round_trip`` (a copy, a pickle)
    must predict as the original does: its fitted arrays came through."""

    def run(xp: Any, x: Any, y: Any) -> Any:
        model = round_trip(LinearDiscriminantAnalysis().fit(x, y))
        return model.predict_proba(x), model.coef_

    return run


WORKFLOWS: list[Call] = [
    Call("make_pipeline", _pipeline, (X, CLASSES), marks=(ZERO_BY_ZERO,)),
    Call("GridSearchCV", _grid_search, (X, TARGET)),
    call("cross_val_score", cross_val_score, Ridge(solver="svd"), X, TARGET, cv=3,
         call_native=False),
    call("train_test_split", train_test_split, X, TARGET, test_size=0.25, random_state=0),
    call("type_of_target", type_of_target, CLASSES),
    call("unique_labels", unique_labels, CLASSES, PREDICTED),
    Call("copy.deepcopy", _kept(copy.deepcopy), (X, CLASSES)),
    Call("pickle", _kept(lambda model: pickle.loads(pickle.dumps(model))), (X, CLASSES)),
    Call("joblib", _kept(_joblib_round_trip), (X, CLASSES)),
]

CLASSIFICATION: list[Call] = [
    call("accuracy_score", metrics.accuracy_score, CLASSES, PREDICTED),
    call("accuracy_score-count", metrics.accuracy_score, CLASSES, PREDICTED, normalize=False),
    call("accuracy_score-weighted", metrics.accuracy_score, CLASSES, PREDICTED,
         sample_weight=POSITIVE),
    # Divides integer counts with / (casting first only for array_api_strict):
    # it relies on integer true division giving a float, which the standard
    # leaves to the implementation and dlarray gives, as NumPy does.
    call("balanced_accuracy_score", metrics.balanced_accuracy_score, CLASSES, PREDICTED),
    call("cohen_kappa_score", metrics.cohen_kappa_score, CLASSES, PREDICTED),
    call("confusion_matrix", metrics.confusion_matrix, CLASSES, PREDICTED),
    call("confusion_matrix-normalized", metrics.confusion_matrix, CLASSES, PREDICTED,
         normalize="true"),
    call("multilabel_confusion_matrix", metrics.multilabel_confusion_matrix, CLASSES, PREDICTED),
    call("f1_score-macro", metrics.f1_score, CLASSES, PREDICTED, average="macro"),
    call("fbeta_score-micro", metrics.fbeta_score, CLASSES, PREDICTED, beta=0.5,
         average="micro"),
    call("precision_score-binary", metrics.precision_score, BINARY, PREDICTED % 2),
    call("recall_score-weighted", metrics.recall_score, CLASSES, PREDICTED, average="weighted"),
    call("jaccard_score-none", metrics.jaccard_score, CLASSES, PREDICTED, average=None),
    call("zero_one_loss", metrics.zero_one_loss, CLASSES, PREDICTED),
    call("hamming_loss", metrics.hamming_loss, CLASSES, PREDICTED),
    call("brier_score_loss", metrics.brier_score_loss, BINARY, SCORES),
    call("log_loss", metrics.log_loss, CLASSES, PROBA),
    call("average_precision_score", metrics.average_precision_score, BINARY, SCORES),
    call("roc_auc_score", metrics.roc_auc_score, BINARY, SCORES,
         call_deviations=(DIFF_POSITIONAL_N,)),
    call("roc_curve", metrics.roc_curve, BINARY, SCORES, call_deviations=(DIFF_POSITIONAL_N,)),
    call("roc_curve-all-thresholds", metrics.roc_curve, BINARY, SCORES,
         drop_intermediate=False),
    call("precision_recall_curve", metrics.precision_recall_curve, BINARY, SCORES),
    call("det_curve", metrics.det_curve, BINARY, SCORES),
]

REGRESSION: list[Call] = [
    call("r2_score", metrics.r2_score, TARGET, ESTIMATE),
    call("r2_score-raw", metrics.r2_score, TARGETS, TARGETS[::-1], multioutput="raw_values"),
    call("explained_variance_score", metrics.explained_variance_score, TARGET, ESTIMATE),
    call("mean_absolute_error", metrics.mean_absolute_error, TARGET, ESTIMATE),
    call("mean_squared_error", metrics.mean_squared_error, TARGET, ESTIMATE),
    call("mean_squared_error-weighted", metrics.mean_squared_error, TARGET, ESTIMATE,
         sample_weight=POSITIVE),
    call("root_mean_squared_error", metrics.root_mean_squared_error, TARGET, ESTIMATE),
    call("mean_squared_log_error", metrics.mean_squared_log_error, POSITIVE, POSITIVE_ESTIMATE),
    call("root_mean_squared_log_error", metrics.root_mean_squared_log_error, POSITIVE,
         POSITIVE_ESTIMATE),
    call("median_absolute_error", metrics.median_absolute_error, TARGET, ESTIMATE),
    call("max_error", metrics.max_error, TARGET, ESTIMATE),
    call("mean_absolute_percentage_error", metrics.mean_absolute_percentage_error, TARGET,
         ESTIMATE),
    call("mean_pinball_loss", metrics.mean_pinball_loss, TARGET, ESTIMATE, alpha=0.3),
    call("mean_poisson_deviance", metrics.mean_poisson_deviance, COUNTS, POSITIVE),
    call("mean_gamma_deviance", metrics.mean_gamma_deviance, POSITIVE, POSITIVE_ESTIMATE),
    call("mean_tweedie_deviance", metrics.mean_tweedie_deviance, POSITIVE, POSITIVE_ESTIMATE,
         power=1.5),
    call("d2_tweedie_score", metrics.d2_tweedie_score, POSITIVE, POSITIVE_ESTIMATE, power=1.5),
]

PAIRWISE: list[Call] = [
    call("cosine_similarity", pairwise.cosine_similarity, X, X_TEST),
    call("cosine_distances", pairwise.cosine_distances, X, X_TEST),
    call("euclidean_distances", pairwise.euclidean_distances, X, X_TEST),
    call("euclidean_distances-squared", pairwise.euclidean_distances, X, squared=True),
    call("manhattan_distances", pairwise.manhattan_distances, X, X_TEST),
    call("linear_kernel", pairwise.linear_kernel, X, X_TEST),
    call("polynomial_kernel", pairwise.polynomial_kernel, X, X_TEST, degree=2),
    call("rbf_kernel", pairwise.rbf_kernel, X, X_TEST, gamma=0.3),
    call("laplacian_kernel", pairwise.laplacian_kernel, X, X_TEST),
    call("sigmoid_kernel", pairwise.sigmoid_kernel, X, X_TEST),
    call("chi2_kernel", pairwise.chi2_kernel, HISTOGRAMS),
    call("additive_chi2_kernel", pairwise.additive_chi2_kernel, HISTOGRAMS),
    call("pairwise_kernels-rbf", pairwise.pairwise_kernels, X, X_TEST, metric="rbf"),
    call("pairwise_distances-cosine", pairwise.pairwise_distances, X, X_TEST, metric="cosine"),
    call("pairwise_distances-euclidean", pairwise.pairwise_distances, X, X_TEST),
    call("pairwise_distances_argmin", pairwise.pairwise_distances_argmin, X_TEST, X),
    call("paired_cosine_distances", pairwise.paired_cosine_distances, X, X[::-1]),
    call("paired_euclidean_distances", pairwise.paired_euclidean_distances, X, X[::-1]),
    call("paired_manhattan_distances", pairwise.paired_manhattan_distances, X, X[::-1]),
]


@parametrize(ESTIMATORS)
def test_estimator_matches_numpy(call: Call, backend: str) -> None:
    check(call, backend)


@parametrize(WORKFLOWS)
def test_workflow_matches_numpy(call: Call, backend: str) -> None:
    check(call, backend)


@parametrize(CLASSIFICATION)
def test_classification_metric_matches_numpy(call: Call, backend: str) -> None:
    check(call, backend)


@parametrize(REGRESSION)
def test_regression_metric_matches_numpy(call: Call, backend: str) -> None:
    check(call, backend)


@parametrize(PAIRWISE)
def test_pairwise_matches_numpy(call: Call, backend: str) -> None:
    check(call, backend)
