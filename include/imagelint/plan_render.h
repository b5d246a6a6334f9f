// `imagelint plan` output for people (src/report/plan_render.cpp); JSON is
// plan::WritePlanJson (imagelint/plan.h).
#pragma once

#include <string>

#include "imagelint/plan.h"

namespace imagelint::report {

std::string RenderPlanText(const plan::PlanReport& report);
std::string RenderPlanMarkdown(const plan::PlanReport& report);
std::string RenderPlanHtml(const plan::PlanReport& report);

}  // namespace imagelint::report
