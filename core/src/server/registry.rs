//! Insertion-ordered registries of tools, resources, templates and prompts.

use super::handlers::{PromptFn, ResourceFn, ToolFn};
use crate::protocol::{Prompt, Resource, ResourceTemplate, Tool};
use crate::schema::CompiledSchema;
use crate::uri_template::UriTemplate;
use std::collections::HashMap;
use std::sync::Arc;

/// An ordered name -> entry map (lists keep registration order, lookups are O(1)).
pub(crate) struct Registry<T> {
    order: Vec<String>,
    map: HashMap<String, Arc<T>>,
}

impl<T> Default for Registry<T> {
    fn default() -> Self {
        Self {
            order: Vec::new(),
            map: HashMap::new(),
        }
    }
}

impl<T> Registry<T> {
    /// Inserts or replaces; returns whether the key was new.
    pub fn insert(&mut self, key: String, value: T) -> bool {
        let new = self.map.insert(key.clone(), Arc::new(value)).is_none();
        if new {
            self.order.push(key);
        }
        new
    }
    pub fn remove(&mut self, key: &str) -> bool {
        if self.map.remove(key).is_some() {
            self.order.retain(|k| k != key);
            true
        } else {
            false
        }
    }
    pub fn get(&self, key: &str) -> Option<Arc<T>> {
        self.map.get(key).cloned()
    }
    pub fn iter(&self) -> impl Iterator<Item = &Arc<T>> {
        self.order.iter().filter_map(|k| self.map.get(k))
    }
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }
}

/// A registered tool with its compiled schemas.
pub(crate) struct ToolEntry {
    pub tool: Tool,
    pub handler: ToolFn,
    pub input: Arc<CompiledSchema>,
    pub output: Option<Arc<CompiledSchema>>,
    /// Its `x-mcp-header` parameters (2026-07-28 Streamable HTTP).
    pub headers: Arc<[super::HeaderParam]>,
}

/// A registered static resource.
pub(crate) struct ResourceEntry {
    pub resource: Resource,
    pub handler: ResourceFn,
}

/// A registered resource template.
pub(crate) struct TemplateEntry {
    pub template: ResourceTemplate,
    pub matcher: UriTemplate,
    pub handler: ResourceFn,
}

/// A registered prompt.
pub(crate) struct PromptEntry {
    pub prompt: Prompt,
    pub handler: PromptFn,
}
