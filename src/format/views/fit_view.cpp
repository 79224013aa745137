// The verdict: a command's one fit, the one --require-fit, --brief, a sweep row, a batch line and a
// compare column read, and the basis it was checked on.
#include "format/field.hpp"
#include "format/views.hpp"

namespace roofline::format {
namespace {

struct F {
  const Fit& fit;
};

const char* basis_name(FitBasis b) {
  switch (b) {
    case FitBasis::pooled:
      return "pooled";
    case FitBasis::per_device:
      return "per_device";
    case FitBasis::training:
      return "training";
  }
  return "pooled";
}

std::string basis_note(const F& x) {
  switch (x.fit.basis) {
    case FitBasis::pooled:
      return "all devices' memory as one pool";
    case FitBasis::per_device:
      return "the binding device of the layout";
    case FitBasis::training:
      if (!x.fit.activations_excluded) return "one training device";
      return x.fit.fits ? "unknown: no layers, so no activations to count" : "one training device, without activations";
  }
  return {};
}

std::string fits_label(const F& x) { return x.fit.activations_excluded ? "fits, activations excluded" : "fits"; }

const std::vector<Field<F>> kFitFields = {
    in_sweep<F>(
        kSweepReport | kSweepMemory | kSweepMemoryLayout | kSweepDecode | kSweepDecodeLayout | kSweepPrefill |
            kSweepPrefillCp | kSweepServe | kSweepServeLayout | kSweepServeLoad | kSweepTrains,
        "fits",
        in_brief<F>(kBriefReport | kBriefMemory | kBriefDecode | kBriefPrefill | kBriefServe | kBriefTrain,
                    {"fits", "fits", "S003-3.4", "needed <= capacity, on the basis below",
                     [](const F& x) { return cell(x.fit.fits); },
                     [](const F& x) { return fmt::format("{} <= {}", num(x.fit.required), num(x.fit.capacity)); },
                     nullptr, nullptr, fits_label})),
    {"basis", "checked on", "", "", [](const F& x) { return cell(std::string(basis_name(x.fit.basis))); }, nullptr,
     basis_note},
};

}  // namespace

const char* fit_basis_name(FitBasis b) { return basis_name(b); }

void add_fit(Report& rep, const Fit& fit, const ViewOptions& view) {
  rep.sections.push_back(make_section("fit", "Verdict", kFitFields, F{fit}, view));
}

void sweep_cells(SweepCells& s, const Fit& fit) { s.add("fit", kFitFields, F{fit}); }

void sweep_cells(SweepCells& s, const std::optional<Fit>& fit) {
  if (fit) {
    s.add("fit", kFitFields, F{*fit});
  } else {
    s.none("fit", kFitFields);
  }
}

}  // namespace roofline::format
