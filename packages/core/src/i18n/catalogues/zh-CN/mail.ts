import type { Translation } from '../../catalogue-shape';
import type en from '../en/mail';

export default {
  frame: {
    copyLink: '或将此链接复制到浏览器中打开：',
    tagline: '住宅代理',
    support: '客服：{{address}}',
    contactSupport: '联系客服',
    contactSupportAt: '联系客服（{{address}}）',
    actionLine: '{{label}}：{{url}}',
  },
  verifyEmail: {
    subject: '验证你的邮箱',
    intro: '请确认你的邮箱地址，即可开始使用 ProxyHub。',
    action: '验证邮箱',
    outro: '此链接 24 小时内有效。如果你没有注册，请忽略此邮件。',
  },
  alreadyRegistered: {
    subject: '登录尝试',
    intro: '有人尝试用此邮箱创建 ProxyHub 账户，但该邮箱已有账户。你可以直接登录。',
    action: '登录',
    outro: '如果这不是你本人的操作，请忽略此邮件。',
  },
  codeGuessing: {
    subject: '有人输入了你的密码，但没有通过验证码',
    intro:
      '有人用你的密码登录了你的 ProxyHub 账户，随后输错了 20 次双重验证码。第二重验证将其挡在门外，验证码登录已暂停 15 分钟。对方已知道你的密码，请立即更改。',
    action: '更改密码',
    outro: '如果是你本人，无需其他操作。否则还请在「设置」中更换你的 API 密钥和代理密码。',
  },
  teamInvite: {
    subject: '你受邀加入 ProxyHub 团队',
    intro: '{{account}} 邀请你以「{{role}}」身份加入其 ProxyHub 账户。请使用此邮箱地址登录或创建账户，然后接受邀请。',
    action: '接受邀请',
    outro: '此链接 7 天内有效，且只能使用一次。如果你不认识发件人，请忽略此邮件。',
  },
  role: {
    admin: '管理员',
    developer: '开发者',
    finance: '财务',
    viewer: '查看者',
  },
  resetPassword: {
    subject: '重置你的密码',
    intro: '我们收到了重置你 ProxyHub 密码的请求。请点击下方按钮设置新密码。',
    action: '重置密码',
    outro: '此链接 1 小时内有效，且只能使用一次。如果你没有提出此请求，请忽略此邮件。',
  },
  passwordChanged: {
    subject: '你的密码已更改',
    intro: '你的 ProxyHub 账户密码刚刚被更改，所有会话均已退出登录。',
    introInSettings: '你的 ProxyHub 账户密码刚刚在「设置」中被更改，你的其他会话均已退出登录。',
    action: '登录',
    outro:
      '如果这不是你本人的操作，请立即重置密码并联系客服。你的 API 密钥和代理密码没有改变：如果它们可能已泄露，请在「设置」中更换（「轮换 API 密钥」「轮换代理密码」），或调用 POST /auth/rotate-api-key 和 POST /auth/rotate-proxy-password。旧 API 密钥立即失效，旧代理密码在 10 秒内失效。',
  },
  lowBalance: {
    subject: '余额不足：剩余 {{remaining}}',
    intro: '你的 ProxyHub 剩余流量为 {{remaining}}，已低于你设置的提醒阈值 {{threshold}}。请充值，以免代理停止工作。',
    action: '充值',
    outro: '你收到此邮件，是因为你在「设置」中开启了余额不足提醒。',
  },
  outOfData: {
    subject: '流量已用完',
    intro: '你的 ProxyHub 剩余流量已降至 {{zero}}：在充值之前，你的代理将停止工作。',
    action: '充值',
    outro: '你收到此邮件，是因为你在「设置」中开启了余额不足提醒。',
  },
  usageThresholdPlan: {
    subject: '已用 {{percent}}：{{what}}',
    intro: '{{what}}已用 {{used}}，共 {{limit}}（{{percent}}）。达到 100% 后，流量将继续从你的按量付费余额中扣除，直到下一个周期开始。',
    action: '控制台',
    outro: '你收到此邮件，是因为你在「设置」中设置了用量提醒百分比。',
  },
  usageThreshold: {
    subject: '已用 {{percent}}：{{what}}',
    intro:
      '{{what}}已用 {{used}}，共 {{limit}}（{{percent}}）。达到 100% 时该账户将停止工作，直到提高限额为止（每日或每月限额会在下一个 UTC 日或月重新开始）。',
    action: '代理账户',
    outro: '你收到此邮件，是因为你在「设置」中设置了用量提醒百分比。',
  },
  meter: {
    cap: '代理账户「{{name}}」的总量上限',
    daily: '代理账户「{{name}}」的每日限额',
    monthly: '代理账户「{{name}}」的每月限额',
    plan: '套餐「{{name}}」本周期的流量额度',
  },
  proxyAccountExpiring: {
    subject: '代理账户「{{name}}」即将到期',
    intro: '你的代理账户「{{name}}」将于 {{expiresAt}}（UTC）到期，此后将拒绝连接。如需继续使用，请设置更晚的到期时间。',
    action: '代理账户',
    outro: '对于你设置了到期时间的代理账户，我们会在到期前三天发送此邮件。',
  },
  planRenewing: {
    subject: '你的 {{plan}} 套餐将于 {{endsOn}} 续期',
    intro:
      '你的 ProxyHub 套餐 {{plan}} 的当前周期将于 {{endsOn}} 结束。在此之前支付下一周期，它会在本周期结束时立即开始；若未支付，套餐将失效，按量付费的流量保持不变。',
    action: '支付下一周期',
    outro: '如需停止续期，请在「账单」中取消续期。本周期剩余的部分在结束前仍归你所有。',
  },
  accountSuspended: {
    subject: '你的 ProxyHub 账户已被暂停',
    intro: '你的 ProxyHub 账户已被暂停：登录、API 和你的代理均已停止。原因：{{reason}}',
    action: '可接受使用政策',
    outro: '如果你认为这是误判，请回复此邮件或联系客服。',
  },
  statusConfirm: {
    subject: '确认订阅 ProxyHub 状态邮件',
    intro: '请确认：当 ProxyHub 状态页上的某个国家出现故障以及恢复正常时，向此地址发送邮件。',
    action: '确认订阅',
    outro: '此链接 24 小时内有效。如果你没有提出此请求，请忽略此邮件，我们不会发送任何邮件。',
  },
  statusIncident: {
    subjectOpened: 'ProxyHub 状态：{{country}} 出现故障',
    subjectClosed: 'ProxyHub 状态：{{country}} 已恢复',
    opened: 'ProxyHub 状态：{{country}} 出现故障。经由 {{country}} 出口的测试连接失败。',
    closed: 'ProxyHub 状态：{{country}} 已恢复。最近 {{window}} 次经由 {{country}} 出口的测试连接均已成功。',
    action: '打开状态页',
    outro: '你收到此邮件，是因为你订阅了 ProxyHub 状态邮件。退订：{{url}}',
  },
} satisfies Translation<typeof en>;
