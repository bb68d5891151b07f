#include "settings_panel.h"

#include "cost/device_profile.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

namespace ios::gui {

namespace {
QSpinBox* spin(QWidget* parent, int lo, int hi, const QString& tip, const QString& name) {
    auto* box = new QSpinBox(parent);
    box->setRange(lo, hi);
    box->setToolTip(tip);
    box->setObjectName(name);
    return box;
}
} // namespace

SettingsPanel::SettingsPanel(QWidget* parent) : QWidget(parent) {
    strategy_ = new QComboBox(this);
    strategy_->setObjectName(QStringLiteral("strategy"));
    for (int i = 0; i < kStrategyCount; ++i)
        strategy_->addItem(strategyLabel(static_cast<StrategyChoice>(i)), i);
    strategy_->setToolTip(tr("Scheduler: baselines, or the IOS dynamic program with merge "
                             "stages, parallel stages or both (IOS paper §4)"));
    r_ = spin(this, 1, 100, tr("r: max operators per group of a parallel stage (pruning)"),
              QStringLiteral("r"));
    s_ = spin(this, 1, 100, tr("s: max groups per parallel stage (pruning); 100 = unpruned"),
              QStringLiteral("s"));
    maxPart_ = spin(this, 1, 128, tr("Operators per DP part when a block has no explicit parts"),
                    QStringLiteral("maxPart"));
    batch_ = spin(this, 1, 4096, tr("Batch size the cost model assumes"), QStringLiteral("batch"));
    device_ = new QComboBox(this);
    device_->setObjectName(QStringLiteral("device"));
    for (const cost::DeviceProfile& d : cost::bundledDevices())
        device_->addItem(QString::fromStdString(d.name), QString::fromStdString(d.name));
    device_->setToolTip(tr("Simulated GPU whose cost model prices the stages"));
    endings_ = new QComboBox(this);
    endings_->setObjectName(QStringLiteral("endings"));
    endings_->addItem(tr("Reference"), static_cast<int>(schedulers::Endings::Reference));
    endings_->addItem(tr("All endings"), static_cast<int>(schedulers::Endings::All));
    endings_->setToolTip(tr("Reference: the IOS authors' enumeration (one source per group); "
                            "All: every ending (ALGORITHMS.md §2)"));

    auto* form = new QFormLayout;
    form->addRow(tr("Strategy"), strategy_);
    form->addRow(tr("Max group size r"), r_);
    form->addRow(tr("Max groups s"), s_);
    form->addRow(tr("Max part size"), maxPart_);
    form->addRow(tr("Batch size"), batch_);
    form->addRow(tr("Device"), device_);
    form->addRow(tr("Endings"), endings_);

    run_ = new QPushButton(tr("Run"), this);
    run_->setObjectName(QStringLiteral("run"));
    run_->setShortcut(Qt::Key_F5);
    run_->setToolTip(tr("Run the search with these settings (F5)"));
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setObjectName(QStringLiteral("cancel"));
    cancel_->setShortcut(Qt::Key_Escape);
    cancel_->setToolTip(tr("Stop the running search (Esc)"));
    progress_ = new QProgressBar(this);
    progress_->setRange(0, 1000);
    progress_->setTextVisible(false);
    result_ = new QLabel(this);
    result_->setWordWrap(true);
    result_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(run_);
    buttons->addWidget(cancel_);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addLayout(buttons);
    layout->addWidget(progress_);
    layout->addWidget(result_);
    layout->addStretch(1);

    connect(run_, &QPushButton::clicked, this, &SettingsPanel::runRequested);
    connect(cancel_, &QPushButton::clicked, this, &SettingsPanel::cancelRequested);
    auto changed = [this] {
        updateEnabled();
        if (!blockChanged_)
            Q_EMIT settingsChanged();
    };
    for (QComboBox* c : {strategy_, device_, endings_})
        connect(c, &QComboBox::currentIndexChanged, this, changed);
    for (QSpinBox* sb : {r_, s_, maxPart_, batch_})
        connect(sb, &QSpinBox::valueChanged, this, changed);
    setSettings(JobSettings{});
    setRunning(false);
}

JobSettings SettingsPanel::settings() const {
    JobSettings s;
    s.strategy = static_cast<StrategyChoice>(strategy_->currentData().toInt());
    s.r = r_->value();
    s.s = s_->value();
    s.maxPartSize = maxPart_->value();
    s.batch = batch_->value();
    s.device = device_->currentData().toString();
    s.endings = static_cast<schedulers::Endings>(endings_->currentData().toInt());
    return s;
}

void SettingsPanel::setSettings(const JobSettings& s) {
    blockChanged_ = true;
    strategy_->setCurrentIndex(strategy_->findData(static_cast<int>(s.strategy)));
    r_->setValue(s.r);
    s_->setValue(s.s);
    maxPart_->setValue(s.maxPartSize);
    batch_->setValue(s.batch);
    const int dev = device_->findData(s.device, Qt::UserRole, Qt::MatchFixedString);
    device_->setCurrentIndex(dev >= 0 ? dev : 0);
    endings_->setCurrentIndex(endings_->findData(static_cast<int>(s.endings)));
    blockChanged_ = false;
    updateEnabled();
    Q_EMIT settingsChanged();
}

void SettingsPanel::updateEnabled() {
    const bool dp = isDpStrategy(static_cast<StrategyChoice>(strategy_->currentData().toInt()));
    const bool parallel =
        strategy_->currentData().toInt() == static_cast<int>(StrategyChoice::Parallel) ||
        strategy_->currentData().toInt() == static_cast<int>(StrategyChoice::Both);
    r_->setEnabled(parallel);
    s_->setEnabled(parallel);
    endings_->setEnabled(parallel);
    maxPart_->setEnabled(dp);
}

void SettingsPanel::setRunning(bool running) {
    run_->setEnabled(true);
    cancel_->setEnabled(running);
    if (!running)
        progress_->setValue(0);
}

void SettingsPanel::setProgress(double fraction) {
    progress_->setValue(static_cast<int>(fraction * 1000.0));
}

void SettingsPanel::setResultText(const QString& text) {
    result_->setText(text);
}

void SettingsPanel::load() {
    QSettings q;
    q.beginGroup(QStringLiteral("search"));
    JobSettings s;
    s.strategy = strategyFromKey(q.value(QStringLiteral("strategy")).toString())
                     .value_or(StrategyChoice::Both);
    s.r = q.value(QStringLiteral("r"), s.r).toInt();
    s.s = q.value(QStringLiteral("s"), s.s).toInt();
    s.maxPartSize = q.value(QStringLiteral("maxPartSize"), s.maxPartSize).toInt();
    s.batch = q.value(QStringLiteral("batch"), s.batch).toInt();
    s.device = q.value(QStringLiteral("device"), QString::fromUtf8(cost::kDefaultDeviceName.data(),
                                                                   cost::kDefaultDeviceName.size()))
                   .toString();
    s.endings = q.value(QStringLiteral("endings")).toString() == QLatin1String("all")
                    ? schedulers::Endings::All
                    : schedulers::Endings::Reference;
    setSettings(s);
}

void SettingsPanel::save() const {
    const JobSettings s = settings();
    QSettings q;
    q.beginGroup(QStringLiteral("search"));
    q.setValue(QStringLiteral("strategy"), strategyKey(s.strategy));
    q.setValue(QStringLiteral("r"), s.r);
    q.setValue(QStringLiteral("s"), s.s);
    q.setValue(QStringLiteral("maxPartSize"), s.maxPartSize);
    q.setValue(QStringLiteral("batch"), s.batch);
    q.setValue(QStringLiteral("device"), s.device);
    q.setValue(QStringLiteral("endings"), s.endings == schedulers::Endings::All
                                              ? QStringLiteral("all")
                                              : QStringLiteral("reference"));
}

} // namespace ios::gui
