#pragma once
// What a proposer is told about the task and the backend (proposers::TaskBrief), as the search loop
// builds it; also the brief of `ksearch port --llm`'s repair step.
#include "backends/backend.hpp"
#include "proposers/protocol.hpp"
#include "tasks/task.hpp"

namespace ksearch::search {

proposers::TaskBrief brief_of(const tasks::Task& task, backends::Backend& backend);

}  // namespace ksearch::search
