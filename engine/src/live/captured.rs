//! A capture taken from a live page, with what taking it computed already: the model of its
//! DOM snapshots and the view's geometry and visibility, and what it was read from when every
//! part is one the page kept (so the pipeline neither builds the model again nor, for a page
//! that did not change, computes its snapshot again).

use std::sync::Arc;

use super::kept_model;
use crate::analysis::{Expand, ViewFacts};
use crate::capture::Capture;
use crate::cdp::page::FrameTree;
use crate::error::Result;
use crate::model::Model;

/// A capture taken from a live page, with the model of its DOM snapshots when taking it built
/// one (a viewport scope decides from it which accessibility nodes to ask for): the pipeline
/// then adds the accessibility trees to that model instead of building it a second time. A
/// capture read from a file, or taken whole, has none.
#[derive(Clone)]
pub struct Captured {
    capture: Capture,
    /// The model of the DOM snapshots, and its geometry and visibility for the view when the
    /// view was known.
    dom_model: Option<DomModel>,
    /// What it was read from, when every part is one the page kept.
    inputs: Option<Inputs>,
    /// How many accessibility nodes were left out because the page changed while it was read
    /// (see [`super::agreement`]).
    left_out: usize,
}

impl std::fmt::Debug for Captured {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Captured")
            .field("capture", &self.capture)
            .field("dom_model", &self.dom_model.as_ref().map(DomModel::is_kept))
            .field("inputs", &self.inputs)
            .field("left_out", &self.left_out)
            .finish()
    }
}

/// The model of a live capture's DOM snapshots, with its view's geometry and visibility when
/// the view was known: built for this capture, or the page's kept one (see [`super::kept_model`]),
/// which is copied only when the pipeline runs, so a snapshot found to repeat the last one
/// never copies it.
// One per capture, moved a few times: boxing the large variant would only add an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
pub(crate) enum DomModel {
    Built(Model, Option<ViewFacts>),
    Kept(Arc<kept_model::KeptState>),
}

impl DomModel {
    pub(crate) fn model(&self) -> &Model {
        match self {
            DomModel::Built(model, _) => model,
            DomModel::Kept(state) => &state.model,
        }
    }

    pub(crate) fn facts(&self) -> Option<&ViewFacts> {
        match self {
            DomModel::Built(_, facts) => facts.as_ref(),
            DomModel::Kept(state) => state.facts.as_ref(),
        }
    }

    pub(crate) fn is_kept(&self) -> bool {
        matches!(self, DomModel::Kept(_))
    }

    /// The same, with the geometry and visibility of `view` computed when it has none.
    pub(crate) fn with_facts(self, view: Expand) -> DomModel {
        match self {
            DomModel::Built(model, None) => {
                let facts = ViewFacts::new(&model, view);
                DomModel::Built(model, Some(facts))
            }
            DomModel::Kept(state) if state.facts.is_none() => {
                let model = state.model.clone();
                DomModel::Built(model, None).with_facts(view)
            }
            built_or_kept => built_or_kept,
        }
    }

    fn into_parts(self) -> (Model, Option<ViewFacts>) {
        match self {
            DomModel::Built(model, facts) => (model, facts),
            DomModel::Kept(state) => (state.model.clone(), state.facts.clone()),
        }
    }
}

/// What a live capture was read from, when every part of it is one its page kept from an
/// earlier snapshot (see [`super::kept_model`]): the state of its DOM (the snapshot's reply, the
/// layout metrics, the URL, the view and the boxes' rectangles) and its accessibility trees,
/// by the numbers they were kept under, and the frame tree. Two captures with equal inputs hold
/// the same data, so what was computed from one holds for the other.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Inputs {
    pub kept: kept_model::KeptParts,
    pub frame_tree: FrameTree,
}

impl Captured {
    /// `dom_model` must be `Model::from_dom_snapshots(&capture)` and its `ViewFacts`, and
    /// `inputs` what every part of `capture` was read from, when each part is one the page kept.
    pub(crate) fn new(
        capture: Capture,
        dom_model: Option<DomModel>,
        inputs: Option<Inputs>,
    ) -> Captured {
        Captured {
            capture,
            dom_model,
            inputs,
            left_out: 0,
        }
    }

    /// The same, `left_out` accessibility nodes left out because the page changed while it was
    /// read.
    pub(crate) fn with_left_out(self, left_out: usize) -> Captured {
        Captured { left_out, ..self }
    }

    /// How many accessibility nodes were left out because the page changed while it was read.
    pub fn left_out(&self) -> usize {
        self.left_out
    }

    /// The capture.
    pub fn capture(&self) -> &Capture {
        &self.capture
    }

    /// What it was read from, when every part is one the page kept.
    pub(crate) fn inputs(&self) -> Option<&Inputs> {
        self.inputs.as_ref()
    }

    /// The capture alone (to save it, for instance).
    pub fn into_capture(self) -> Capture {
        self.capture
    }

    /// The model of the whole capture, accessibility trees included.
    pub fn into_model(self) -> Result<Model> {
        self.into_model_and_view().map(|(model, _)| model)
    }

    /// [`Captured::into_model`], with the geometry and visibility computed while capturing
    /// (for [`crate::analysis::analyze_view`]), when there are any.
    pub fn into_model_and_view(self) -> Result<(Model, Option<ViewFacts>)> {
        let Captured {
            mut capture,
            dom_model,
            ..
        } = self;
        match dom_model {
            None => Ok((Model::from_capture(capture)?, None)),
            Some(dom_model) => {
                let (mut model, view) = dom_model.into_parts();
                // Read already: freed before the accessibility trees are linked.
                capture.dom_snapshot = Arc::default();
                for o in &mut capture.oopifs {
                    o.dom_snapshot = Arc::default();
                }
                model.add_ax_trees(&mut capture);
                Ok((model, view))
            }
        }
    }
}

impl From<Capture> for Captured {
    fn from(capture: Capture) -> Captured {
        Captured {
            capture,
            dom_model: None,
            inputs: None,
            left_out: 0,
        }
    }
}
